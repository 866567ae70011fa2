// Package atspi reads accessibility trees over AT-SPI2 on D-Bus, in pure Go.
//
// A Client holds one connection to the accessibility bus (found through org.a11y.Bus.GetAddress
// on the session bus) and is safe for concurrent use. Every D-Bus call carries a deadline of at
// most Options.CallTimeout, because the a11y bus waits 300 s for a reply and godbus has no
// default timeout: a hung application costs one deadline and fails with
// platform.ErrAppNotResponding, never the server or other applications.
//
// Trees are built from org.a11y.atspi.Cache.GetItems (one call describes a whole application;
// it only answers after some client called Registry.RegisterEvent, which Connect does), then
// the per-node data the cache lacks (extents, accessible id, actions, value) is fetched with
// many calls in flight. Children of containers that manage their descendants (table cells)
// are not in the cache and are walked with GetChildren or GetChildAtIndex; applications
// without a cache are walked entirely with concurrent calls. Children keep the cache's order
// (their index in the parent, as libatspi orders them), which GTK's scrolled windows report
// differently from GetChildren.
//
// Accessible ids, action names, roles and interfaces do not change while an object lives,
// so the Client remembers them per object path: the first tree of an application pays for
// them (about 2.5× the calls), later trees do not. An id an application sets on an object
// after it was first seen is therefore not noticed.
//
// Values: password fields are masked (MaskedValue) without reading them; text is read up to
// 4096 characters; Value objects report CurrentValue.
//
// Element references (Node.Ref) are FormatRef strings: the bus name and object path of a live
// object, compact and opaque to callers. Object paths are per-process counters, so a ref is
// valid while its object lives, not across application restarts.
package atspi
