// Package atspi reads accessibility trees over AT-SPI2 on D-Bus, in pure Go.
//
// A Client holds two connections to the accessibility bus (found through org.a11y.Bus.GetAddress
// on the session bus), godbus's and a minimal one (package dbuswire) that carries a tree's many
// small calls at a fraction of godbus's CPU, and is safe for concurrent use. Every D-Bus call carries a deadline of at
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
// object, compact and opaque to callers; a path FormatRef cannot abbreviate (GTK 4's UUIDs)
// gets a short alias the client keeps (refAliases). Object paths are per-process counters, so a
// ref is valid while its object lives, not across application restarts. Element re-reads one ref
// with a few pipelined calls; an object its application no longer knows, that is defunct, or
// that lost its parent is stale. GTK keeps the widgets of a hidden page (stack, notebook)
// alive: they stay valid, without "showing" and without bounds.
//
// Act maps semantic actions onto Action, EditableText, Value, Component and Selection (see
// Act). GTK's bridge answers DoAction before it runs the action, and a handler that runs a
// modal dialog's nested main loop (gtk_dialog_run) leaves the application answering no AT-SPI
// call on the bus — its dialog included — until the dialog closes, while its events still
// arrive (its own socket still answers walks: peer.go). So the acting call and a GetState
// probe right after it each wait Options.ModalGrace; one still unanswered then is told apart
// from a merely busy application by a read sent after it (awaitCall): answered first, the
// application is in a nested loop and Act reports ModalPending; silent both for a call deadline
// more, it reports ModalPending too rather than hanging.
//
// WatchTree listens to the event signals of one process's applications through match rules
// on the client's connection; one signal handler fans them out by sender to every watch
// without blocking, and each watch coalesces them into a channel of capacity 1. The event
// types are registered with the registry while any watch runs.
package atspi
