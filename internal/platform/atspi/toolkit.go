package atspi

import (
	"context"
	"strings"

	"github.com/godbus/dbus/v5"
)

// bridge is what mcec knows about one application's accessibility bridge: which calls it serves
// safely and which facts it reports truthfully. Bridges differ more than the AT-SPI spec admits
// (measured in shared/spec/linux-desktop-notes.md): Qt's segfaults on Properties.GetAll, GTK 4.8
// reports window-relative extents, no SHOWING below the frame and "" for GetText(0, -1).
type bridge struct {
	Toolkit, Version string
	// getAll: Properties.GetAll is safe. Only bridges measured safe get it (at-spi2-core's ATK
	// bridge, behind GTK 3, LibreOffice, Firefox, Chromium and Java's ATK wrapper; GTK 4's GDBus);
	// everything else is read one property at a time, as pyatspi does.
	getAll bool
	// windowCoords: extents are relative to the toplevel window whatever coordinate type is
	// asked (GTK 4.8 prints "Screen coordinates not supported" and answers window-relative
	// ones), so they are asked for in window coordinates and offset by the window's origin.
	windowCoords bool
	// relative: extents are relative to the toplevel window, not the screen, so they are offset
	// by the window's origin (windowOrigin). GTK 4's (windowCoords), and every toolkit's on
	// Wayland, where no client knows where its window is (Options.WindowLocal).
	relative bool
	// noShowing: the bridge sets SHOWING only on top-level windows, so VISIBLE stands in for
	// it below them (GTK 4.8).
	noShowing bool
	// wholeText: GetText(0, -1) returns the whole text. GTK 4.8 returns "" for it; such bridges
	// are read as CharacterCount, then GetText(0, count).
	wholeText bool
	// comboSelectionLies: a combo box's name and Selection follow its popup list's highlight,
	// not the entry the application chose, and Selection.SelectChild on the combo box clears
	// the choice (Java's ATK wrapper; measured on OpenJDK 17).
	comboSelectionLies bool
	// typeNames: an element without an accessible name is named after its widget's type
	// ("GtkButton", "AdwGizmo", an application's own "HistoryView"; GTK 4.8, measured in GNOME
	// Calculator 43): such names are dropped (displayName).
	typeNames bool
	// silentValue: setting Value.CurrentValue changes a web page's input without the input and
	// change events the page listens to (Gecko: the field shows the number, the page's logic
	// never hears of it; measured on Firefox ESR), so values are typed there instead.
	silentValue bool
	// textNotNamed: a web page's text elements (paragraphs, headings) carry their text in Text,
	// not in their name (Gecko), so lean walks read it for them: an action's effect that only
	// changes a paragraph's text is seen (the effect observer's walks are lean).
	textNotNamed bool
	// vclShift: LibreOffice's gtk3 plugin reports its VCL objects' extents without the native
	// menu bar above them (vcl.go).
	vclShift bool
	// stablePaths: an object path names one object, whose role never changes, for the life of
	// the process (GTK 3's own widgets: at-spi2-atk numbers paths with a counter), so a role and
	// interfaces the client's meta cache holds for a path are used without reading the role
	// again. Not LibreOffice's or Gecko's objects, whose paths are reused (describe).
	stablePaths bool
	// peer: the bridge serves its objects on a socket of its own too (at-spi2-core's ATK
	// bridge), where the fast path's calls skip the bus daemon (peer.go).
	peer bool
	// cellTextIsName: a table cell's text is its name. GTK 3's text cells (GtkTextCellAccessible,
	// the cells of every GtkTreeView) answer both from the one string their renderer draws, so
	// the walk takes the value from the name instead of a GetText per row: a quarter of a long
	// list's calls (BenchmarkColdList). TestPeerConnection compares both on a live list.
	cellTextIsName bool
	// cellsInRows: a table's cells are its children row by row in display order, and a cell
	// scrolled out of view says so only through GetExtents (GTK 3's GtkTreeView), so a walk
	// measures the cells in view and settles the rest (rowsinview.go).
	cellsInRows bool
	// mirrored: the bridge's events were measured to cover every change a walk can see, so an
	// unchanged tree may be answered from the mirror (mirror.go).
	mirrored bool
	// mnemonicNames: a label's raw mnemonic ("_Save") may be in the name (mnemonic.go).
	mnemonicNames bool
	// looseParents: an object's IndexInParent may be -1 (and its Parent the application's root)
	// while its container lists it among its children (EFL 1.26: Terminology's dialog buttons
	// and labels), so that index does not make it stale.
	looseParents bool
	// actionsByCount: Action.GetActions is not answered at all (WebKitGTK 2.50's web process
	// never replies), so action names are read with GetNActions and GetName.
	actionsByCount bool
	// lateLabels: a check box or radio button whose <label> text the page added after the
	// browser first described the box keeps an empty name for good, with no relation, while
	// the text shows as the static text beside it (Chromium: beside a second make test its
	// parser yields between `<input>` and ` Subscribe`; a page that appends the text later does
	// it every time). The box takes that text as its name (latelabels.go).
	lateLabels bool
}

// plugBridge is the profile of a plug's connection that does not name its toolkit (WebKitGTK's
// web process, embed.go): read property by property, actions by count, a web page's text
// elements read for their text; extents as the host's, whose window the plug is drawn in.
func plugBridge(host bridge) bridge {
	return bridge{Toolkit: "plug", textNotNamed: true, actionsByCount: true,
		windowCoords: host.windowCoords, relative: host.relative}
}

// AT-SPI coordinate types (AtspiCoordType).
const (
	coordScreen uint32 = 0
	coordWindow uint32 = 1
)

// chromium reports Chromium's bridge (Electron's too).
func (b bridge) chromium() bool { return strings.EqualFold(b.Toolkit, "chromium") }

// declinesFocus reports a bridge that does not implement Component.GrabFocus: GTK 4 (4.8
// answers it with an error, measured on the reach suite's entry and gtk4-widget-factory's).
func (b bridge) declinesFocus() bool {
	return strings.EqualFold(b.Toolkit, "gtk") && strings.HasPrefix(b.Version, "4.")
}

// coordType is the coordinate type to ask extents in: window coordinates where the bridge
// answers those whatever is asked (asking GTK 4 for screen ones prints a warning per call).
func (b bridge) coordType() uint32 {
	if b.windowCoords {
		return coordWindow
	}
	return coordScreen
}

// bridgeFor derives the profile from Application.ToolkitName and Version.
func bridgeFor(toolkit, version string) bridge {
	b := bridge{Toolkit: toolkit, Version: version}
	switch strings.ToLower(toolkit) {
	case "gtk":
		if strings.HasPrefix(version, "4.") {
			// GTK 4 has its own bridge on GDBus (GetAll is GDBus's, safe).
			b.getAll, b.windowCoords, b.relative, b.noShowing, b.typeNames = true, true, true, true, true
			b.mnemonicNames = true
			return b
		}
		b.getAll, b.wholeText, b.mirrored, b.peer = true, true, true, true
	case "j2se-access-bridge", "atk wrapper", "java":
		b.getAll, b.wholeText, b.comboSelectionLies, b.peer = true, true, true, true
	case "elementary":
		b.looseParents = true
	case "gecko", "chromium", "gail", "vcl":
		// at-spi2-core's ATK bridge serves these (and Java's above).
		b.getAll, b.wholeText, b.peer = true, true, true
		b.silentValue = strings.EqualFold(toolkit, "gecko")
		b.textNotNamed = b.silentValue
		b.lateLabels = strings.EqualFold(toolkit, "chromium")
	}
	return b
}

// bridgeOf returns the profile of the application on bus, reading its toolkit once (bus names
// are never reused). Reading Application properties one at a time is safe on every bridge. A
// bridge that does not say gets the conservative profile; a hung application fails.
func (c *Client) bridgeOf(ctx context.Context, bus string) (bridge, error) {
	c.mu.Lock()
	b, ok := c.bridges[bus]
	c.mu.Unlock()
	if ok {
		if b.peer {
			c.connectPeer(ctx, bus) // at once unless an earlier attempt was cut short
		}
		return b, nil
	}
	var toolkit, version string
	if f, err := c.property(ctx, bus, registryRoot, ifApplication, "ToolkitName", &toolkit); f.fatal() {
		return bridge{}, err
	}
	if f, err := c.property(ctx, bus, registryRoot, ifApplication, "Version", &version); f.fatal() {
		return bridge{}, err
	}
	b = bridgeFor(toolkit, version)
	b.relative = b.relative || c.opts.WindowLocal
	if strings.EqualFold(toolkit, "gtk") && strings.HasPrefix(version, "3.") {
		var name string
		if f, err := c.property(ctx, bus, registryRoot, ifAccessible, "Name", &name); f.fatal() {
			return bridge{}, err
		}
		b.vclShift = isVCL(name)
		b.stablePaths = !b.vclShift
		b.cellTextIsName = !b.vclShift
		b.cellsInRows = !b.vclShift
	}
	c.mu.Lock()
	c.bridges[bus] = b
	c.mu.Unlock()
	if b.peer {
		c.connectPeer(ctx, bus)
	}
	return b, nil
}

// knownBridge returns the profile of bus when bridgeOf has read it, the conservative zero
// profile otherwise (hot paths must not start a toolkit read of their own).
func (c *Client) knownBridge(bus string) bridge {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bridges[bus]
}

// normalize makes a state set mean the same on every bridge: where SHOWING is set only on
// top-level windows, VISIBLE stands in for it.
func (b bridge) normalize(s stateBits) stateBits {
	if b.noShowing && s.has(stateVisible) {
		s[stateShowing/32] |= 1 << (stateShowing % 32)
	}
	return s
}

// getAllProps reads every property of iface on the object with one GetAll where the bridge is
// known to serve it safely; ok is false where it is not (read single properties instead) or
// the reply did not decode.
func (c *Client) getAllProps(ctx context.Context, b bridge, ref objRef, iface string) (props map[string]dbus.Variant, ok bool, f failure, err error) {
	if !b.getAll {
		return nil, false, 0, nil
	}
	call, f, err := c.call(ctx, ref.Bus, ref.Path, propGetAll, iface)
	if err != nil {
		return nil, false, f, err
	}
	if call.Store(&props) != nil {
		return nil, false, 0, nil
	}
	return props, true, 0, nil
}

// displayName is an element's name as agents see and match it: without the padding some menus
// carry ("Save As...      " in GTK 3 menus that align their accelerators), and without the type
// names a bridge puts where a name is missing.
func (b bridge) displayName(name string) string {
	name = strings.TrimSpace(name)
	if b.typeNames && isTypeName(name) {
		return ""
	}
	return name
}

// isTypeName reports a CamelCase identifier of two or more capitalised parts ("GtkButton",
// "AdwGizmo", "HistoryView"), the shape of a GType name. A real label rarely has it ("Undo",
// "OK", "PhD" do not).
func isTypeName(s string) bool {
	parts := 0
	for i := 0; i < len(s); {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
		j := i + 1
		for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if j == i+1 {
			return false // a capital without a lower-case run: an acronym, not a type part
		}
		parts++
		i = j
	}
	return parts >= 2
}
