package kwin

import (
	"context"
	"fmt"
	"time"
)

// unloadTimeout bounds unloading a script after its request ended.
const unloadTimeout = 2 * time.Second

// Rect is a rectangle in KWin's layout (logical) coordinates.
type Rect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Window is one application window as KWin's scripting API describes it.
type Window struct {
	ID            string `json:"id"` // internalId, a UUID in braces; stable for the window's life
	Caption       string `json:"caption"`
	PID           int    `json:"pid"`
	ResourceClass string `json:"resourceClass"` // the app id (Wayland) or WM_CLASS class (X11)
	// Frame is the window with KWin's decoration; Client inside it; Buffer is the surface,
	// client-side shadow included.
	Frame        Rect   `json:"frame"`
	Client       Rect   `json:"client"`
	Buffer       Rect   `json:"buffer"`
	Minimized    bool   `json:"minimized"`
	Maximized    bool   `json:"maximized"`
	FullScreen   bool   `json:"fullScreen"`
	Active       bool   `json:"active"`
	Dialog       bool   `json:"dialog"`
	Modal        bool   `json:"modal"`
	TransientFor string `json:"transientFor"` // the parent's ID, "" when none
	X11          bool   `json:"x11"`          // an XWayland client
	WindowID     uint32 `json:"windowId"`     // its X11 window id, when X11
}

// windowsScript lists the windows that applications show (normal windows and dialogs; not
// panels, the desktop, menus or tooltips) in stacking order, bottom to top.
const windowsScript = `
  var list = workspace.windowList ? workspace.windowList() : workspace.clientList();
  // Plasma 6 lists the stack; KWin 5.27 only numbers each window's place in it.
  var order = workspace.stackingOrder || list.slice().sort(function (a, b) { return a.stackingOrder - b.stackingOrder; });
  function rect(g) { return g ? {x: Math.round(g.x), y: Math.round(g.y), width: Math.round(g.width), height: Math.round(g.height)} : null; }
  var out = [];
  order.forEach(function (w) {
    if (list.indexOf(w) < 0 || !(w.normalWindow || w.dialog || w.utility)) return;
    var full = workspace.clientArea(KWin.MaximizeArea, w);
    var f = w.frameGeometry;
    out.push({
      id: String(w.internalId), caption: String(w.caption), pid: w.pid || 0,
      resourceClass: String(w.resourceClass || ""),
      frame: rect(f), client: rect(w.clientGeometry || f), buffer: rect(w.bufferGeometry || f),
      minimized: !!w.minimized, fullScreen: !!w.fullScreen, active: !!w.active,
      maximized: !w.fullScreen && f.x == full.x && f.y == full.y && f.width == full.width && f.height == full.height,
      dialog: !!w.dialog, modal: !!w.modal,
      transientFor: w.transient && w.transientFor ? String(w.transientFor.internalId) : "",
      x11: !!w.windowId, windowId: w.windowId || 0
    });
  });
  return out;
`

// Windows lists the application windows, bottom to top.
func (c *Conn) Windows(ctx context.Context) ([]Window, error) {
	var out []Window
	if err := c.Run(ctx, windowsScript, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Op is a change to one window.
type Op struct {
	Kind string // "activate", "minimize", "maximize", "restore", "geometry", "close"
	// Frame is the frame geometry that "geometry" sets.
	Frame Rect
}

// ErrNoWindow says KWin has no window with the given id.
var ErrNoWindow = fmt.Errorf("KWin has no such window")

// Do applies op to the window id. It fails with ErrNoWindow when the window is gone.
func (c *Conn) Do(ctx context.Context, id string, op Op) error {
	var action string
	switch op.Kind {
	case "activate":
		action = `w.minimized = false; if ("activeWindow" in workspace) workspace.activeWindow = w; else workspace.activeClient = w;`
	case "minimize":
		action = `w.minimized = true;`
	case "maximize":
		action = `w.minimized = false; w.fullScreen = false; w.setMaximize(true, true);`
	case "restore":
		action = `w.minimized = false; w.fullScreen = false; w.setMaximize(false, false);`
	case "geometry":
		action = fmt.Sprintf(`w.frameGeometry = {x: %d, y: %d, width: %d, height: %d};`,
			op.Frame.X, op.Frame.Y, op.Frame.Width, op.Frame.Height)
	case "close":
		action = `w.closeWindow();`
	default:
		return fmt.Errorf("kwin: unknown window operation %q", op.Kind)
	}
	var found bool
	err := c.Run(ctx, fmt.Sprintf(`
  var list = workspace.windowList ? workspace.windowList() : workspace.clientList();
  for (var i = 0; i < list.length; i++) {
    var w = list[i];
    if (String(w.internalId) == %q) { %s return true; }
  }
  return false;
`, id, action), &found)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("%w: %s", ErrNoWindow, id)
	}
	return nil
}
