// Package platform is the seam between mcec's tools and a desktop backend.
//
// Tools see only the Desktop interface, the value types and the sentinel errors declared here.
// The Linux backend (X11 for windows, pixels and input; AT-SPI2 for accessibility trees) lives in
// the subpackages x11, atspi and linux; another backend (Windows UIA, Wayland) would implement the
// same interface without touching tools or transports.
//
// Backends convert their own failures (X errors, D-Bus errors, deadlines) into the sentinels below,
// wrapped with %w, exactly once, at the adapter. Tools map sentinels onto contract codes in one place.
package platform

import (
	"context"
	"errors"
	"image"
)

// Desktop is everything tools need from a desktop backend. Implementations must be safe for
// concurrent use: observation calls run concurrently. Every method honours ctx's deadline.
type Desktop interface {
	// Windows lists the top-level client windows (EWMH _NET_CLIENT_LIST order, bottom to top).
	Windows(ctx context.Context) ([]Window, error)
	// Window re-describes one window by handle; ErrWindowClosed when it no longer exists.
	Window(ctx context.Context, handle uint32) (Window, error)
	// Displays lists monitors and the virtual screen bounds.
	Displays(ctx context.Context) (Displays, error)
	// CaptureRect grabs the on-screen pixels of r (absolute root coordinates, already clipped to the
	// screen by the caller).
	CaptureRect(ctx context.Context, r Rect) (*image.RGBA, error)
	// CaptureWindow grabs the window's own pixels (its client area, Width x Height).
	CaptureWindow(ctx context.Context, handle uint32) (WindowCapture, error)
	// Tree returns the accessibility tree of the application frame that belongs to w.
	Tree(ctx context.Context, w Window, limits TreeLimits) (Tree, error)
	// Close releases connections and undoes any state the backend changed (e.g. redirections).
	Close() error
}

// Rect is a rectangle in absolute screen pixels.
type Rect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Empty reports whether r has no area.
func (r Rect) Empty() bool { return r.Width <= 0 || r.Height <= 0 }

// Intersect returns the part of r inside s (empty when they do not overlap).
func (r Rect) Intersect(s Rect) Rect {
	ir := image.Rect(r.X, r.Y, r.X+r.Width, r.Y+r.Height).Intersect(image.Rect(s.X, s.Y, s.X+s.Width, s.Y+s.Height))
	return Rect{X: ir.Min.X, Y: ir.Min.Y, Width: ir.Dx(), Height: ir.Dy()}
}

// Contains reports whether s lies entirely inside r.
func (r Rect) Contains(s Rect) bool {
	return s.X >= r.X && s.Y >= r.Y && s.X+s.Width <= r.X+r.Width && s.Y+s.Height <= r.Y+r.Height
}

// Window describes one top-level window. Bounds are the client area in root coordinates (without
// window-manager decorations).
type Window struct {
	Handle      uint32
	Title       string
	ClassName   string // WM_CLASS class part
	ProcessName string // /proc/PID/comm; empty when the pid is unknown
	ProcessID   int    // _NET_WM_PID; 0 when the client did not set it
	Bounds      Rect
	Minimized   bool // _NET_WM_STATE_HIDDEN
	Maximized   bool // both _NET_WM_STATE_MAXIMIZED_VERT and _HORZ
	Fullscreen  bool
	Focused     bool // the _NET_ACTIVE_WINDOW
}

// Displays is the monitor layout.
type Displays struct {
	VirtualBounds Rect
	Monitors      []Monitor
}

// Monitor is one RandR monitor.
type Monitor struct {
	Index       int
	Primary     bool
	Name        string
	Bounds      Rect
	WorkingArea Rect // the EWMH work area clipped to this monitor; Bounds when the WM sets none
	DPI         float64
	Scale       float64 // DPI / 96, rounded to two decimals
}

// WindowCapture is a window's pixels and how they were obtained.
type WindowCapture struct {
	Image *image.RGBA
	// Fallback is true when the window's own pixels could not be read (no Composite), so the image
	// is whatever is on screen in the window's rectangle.
	Fallback bool
	// Restored is true when the window was minimized and had to be restored to be captured.
	Restored bool
}

// TreeLimits bounds a tree walk.
type TreeLimits struct {
	MaxDepth int // levels below the root; the root is depth 0
	MaxNodes int // nodes returned at most, root included
}

// Tree is the result of one walk.
type Tree struct {
	Root      *Node
	NodeCount int
	// Truncated is true when MaxDepth or MaxNodes cut off nodes that exist.
	Truncated bool
	// SkippedDead counts nodes that vanished during the walk and were left out.
	SkippedDead int
	// SecretsMasked counts password nodes whose text was replaced by a mask.
	SecretsMasked int
}

// Node is one accessible object.
type Node struct {
	// Ref is an opaque, backend-defined live reference to the object; it stays valid while the
	// object lives, across calls and sessions.
	Ref          string
	Role         string // raw AT-SPI role name, e.g. "push button", "page tab"
	ControlType  string // UIA-style control type mapped from the role, e.g. "Button", "TabItem"
	Name         string
	Description  string
	AutomationID string   // AT-SPI AccessibleId; GTK3 leaves it empty unless the app sets it
	Bounds       *Rect    // nil when the object has no Component or is not showing
	States       StateSet // AT-SPI states this object reports
	Value        *string  // text content or numeric value rendered as text, when it has one
	Actions      []string // AT-SPI action names
	Children     []*Node
}

// StateSet is the set of AT-SPI state names an object reports (e.g. "enabled", "showing").
type StateSet map[string]bool

// Sentinel errors. Backends wrap them with %w and a detail for people.
var (
	ErrWindowNotFound     = errors.New("window not found")
	ErrWindowClosed       = errors.New("window closed")
	ErrElementStale       = errors.New("element no longer exists")
	ErrNoAccessibleTree   = errors.New("application exposes no accessible tree")
	ErrAppNotResponding   = errors.New("application not responding")
	ErrElevated           = errors.New("access to the target is denied")
	ErrDisplayUnavailable = errors.New("display unavailable")
	ErrAtspiUnavailable   = errors.New("accessibility bus unavailable")
	ErrCaptureFailed      = errors.New("capture failed")
)
