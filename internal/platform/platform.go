// Package platform is the seam between mcec's tools and a desktop backend.
//
// Tools see only the Desktop interface — or the role interfaces it joins (WindowReader,
// WindowOperator, TreeReader, Actor, Capturer, InputProvider, Clipboard, Diagnostics) where a
// consumer needs one role — the value types and the sentinel errors declared here.
// The Linux backend (X11 for windows, pixels and input; AT-SPI2 for accessibility trees) lives in
// the subpackages x11, atspi and linux; another backend (Windows UIA, Wayland) would implement the
// same interface without touching tools or transports.
//
// Backends convert their own failures (X errors, D-Bus errors, deadlines) into the sentinels below,
// wrapped with %w, exactly once, at the adapter. Tools map sentinels onto contract codes in one place.
package platform

import (
	"context"
	"fmt"
	"image"
	"time"
)

// Desktop is everything tools need from a desktop backend: the role interfaces below, joined.
// A consumer that needs one role asks for that role (a tree reader takes a TreeReader, not a
// Desktop), so what it depends on is what it uses and a test double implements only that.
// Implementations must be safe for concurrent use: observation calls run concurrently. Every
// method honours ctx's deadline.
type Desktop interface {
	WindowReader
	WindowOperator
	TreeReader
	Actor
	Capturer
	InputProvider
	Clipboard
	Diagnostics

	// Close releases connections and undoes any state the backend changed (e.g. redirections).
	Close() error
}

// WindowReader reads the screen's layout: top-level windows and monitors, and the window list's
// changes. It changes nothing.
type WindowReader interface {
	// Windows lists the top-level client windows bottom to top (stacking order; on X11
	// _NET_CLIENT_LIST_STACKING).
	Windows(ctx context.Context) ([]Window, error)
	// Window re-describes one window by handle; ErrWindowClosed when it no longer exists.
	Window(ctx context.Context, handle uint32) (Window, error)
	// Displays lists monitors and the virtual screen bounds.
	Displays(ctx context.Context) (Displays, error)
	// WatchWindows reports changes of the window list, the active window, and window mapping,
	// coalesced like TreeReader.WatchTree.
	WatchWindows(ctx context.Context) (<-chan struct{}, error)
}

// WindowOperator changes windows through the window manager.
type WindowOperator interface {
	// WindowOp moves, resizes, minimizes, maximizes, restores or activates a window.
	WindowOp(ctx context.Context, handle uint32, op WindowOp) error
}

// TreeReader reads accessibility trees: walks, objects by ref, focus, and change events. It
// changes nothing.
type TreeReader interface {
	// Tree returns the accessibility tree of the application frame that belongs to w.
	Tree(ctx context.Context, w Window, limits TreeLimits) (Tree, error)
	// Element re-reads one accessible object by ref (no search): ErrElementStale when the object
	// is gone, ErrWindowClosed when its whole application is gone.
	Element(ctx context.Context, ref string) (Element, error)
	// Subtree walks the tree under the object ref (the root at depth 0), within limits; errors
	// as Element's.
	Subtree(ctx context.Context, ref string, limits TreeLimits) (Tree, error)
	// Focused returns the object that has keyboard focus in process pid (ErrElementStale when none).
	Focused(ctx context.Context, pid int) (Element, error)
	// WatchTree reports changes in the accessibility of process pid (children added or removed,
	// states, text, names, new windows): one value per burst of changes (coalesced, never queued
	// without bound) until ctx ends. Waits re-check on each value and poll as a fallback.
	WatchTree(ctx context.Context, pid int) (<-chan struct{}, error)
}

// TreePrimer is a TreeReader that answers unchanged trees from a mirror and can start the check
// such an answer needs (a round trip to each mirrored application) before the window is known:
// the context it returns carries the checks to the Tree calls made with it, so they overlap
// the window lookup. Optional; a check is never older than the call that started it.
type TreePrimer interface {
	PrimeTrees(ctx context.Context) context.Context
}

// Actor performs semantic actions on accessible objects.
type Actor interface {
	// Act performs a semantic action on the object ref (see ElementAction). It returns once the
	// action was delivered; ModalPending when the application stopped answering right after it
	// (a modal dialog runs a nested loop), in which case the action is still in progress.
	Act(ctx context.Context, ref string, action ElementAction, text string) (ActResult, error)
}

// Capturer reads pixels.
type Capturer interface {
	// CaptureRect grabs the on-screen pixels of r (absolute root coordinates, already clipped to the
	// screen by the caller).
	CaptureRect(ctx context.Context, r Rect) (*image.RGBA, error)
	// CaptureWindow grabs the window's own pixels (its client area, Width x Height).
	CaptureWindow(ctx context.Context, handle uint32) (WindowCapture, error)
}

// InputProvider hands out the desktop's input synthesizer.
type InputProvider interface {
	// Input synthesizes real input (XTEST). Callers serialize gestures; each call is atomic and
	// leaves no button or key held, also when it fails or ctx ends midway.
	Input() Input
}

// Clipboard reads and owns the CLIPBOARD selection.
type Clipboard interface {
	// ClipboardGet returns the CLIPBOARD selection as UTF-8 text ("" when empty).
	ClipboardGet(ctx context.Context) (string, error)
	// ClipboardSet makes the backend own CLIPBOARD with text until another client takes it.
	ClipboardSet(ctx context.Context, text string) error
}

// Diagnostics describes the desktop for people (a session's environment.json).
type Diagnostics interface {
	// WindowManager names the running window manager ("" when none announces itself).
	WindowManager(ctx context.Context) (string, error)
	// Apps lists the applications registered on the accessibility bus with their toolkits. An
	// application that does not answer is listed with Err set.
	Apps(ctx context.Context) ([]App, error)
}

// App is one application on the accessibility bus.
type App struct {
	PID            int
	Name           string
	Toolkit        string // e.g. "GTK", "Qt"
	ToolkitVersion string
	Err            error // the application did not answer
}

// Element is one object re-read by ref, with what a tool needs to target it.
type Element struct {
	Node Node // without children
	PID  int  // the process whose window shows it (a plugged page: its host browser's)
	// Parent is the parent's ref ("" for an application's top level).
	Parent string
	// LabelFor lists the refs of the controls a label (role label, static or caption) labels:
	// AT-SPI's label-for relation, as a web page's <label for> sets it. Empty for other roles.
	LabelFor []string
}

// ElementAction is a semantic action on an accessible object.
type ElementAction string

// The semantic actions. The backend maps each onto its accessibility API and fails
// ErrUnsupported (with what the object can do in the detail) when the object cannot do it.
const (
	ActInvoke   ElementAction = "invoke"   // the default action: click, press, activate
	ActToggle   ElementAction = "toggle"   // check boxes, toggle buttons, switches
	ActSetValue ElementAction = "setvalue" // editable text (text) or numeric value (text parsed)
	ActSetFocus ElementAction = "setfocus" // keyboard focus onto the object
	ActExpand   ElementAction = "expand"
	ActCollapse ElementAction = "collapse"
	ActSelect   ElementAction = "select" // selection through the parent (tabs, list items, combo entries)
)

// ActResult is what an action reports.
type ActResult struct {
	ModalPending bool
}

// Point is a position in absolute screen pixels.
type Point struct{ X, Y int }

// Button is a mouse button.
type Button int

// Mouse buttons, numbered as X numbers them.
const (
	ButtonLeft   Button = 1
	ButtonMiddle Button = 2
	ButtonRight  Button = 3
)

// Input synthesizes pointer and keyboard input.
type Input interface {
	// Click moves the pointer to p and clicks button count times (1 or 2).
	Click(ctx context.Context, p Point, button Button, count int) error
	// Drag presses button at path[0], moves through every point (densified so applications
	// see motion), and releases at the last point. The button is released whatever happens.
	Drag(ctx context.Context, path []Point, button Button) error
	// Chord presses the keys (X keysym names, modifiers first, e.g. "Control_L", "c") in order
	// and releases them in reverse.
	Chord(ctx context.Context, keys ...string) error
	// Type types text literally, whatever the keyboard layout (characters missing from the keymap
	// are typed through a spare keycode temporarily remapped to them).
	Type(ctx context.Context, text string) error
	// Held lists the keys and buttons currently held down (for tests and safety checks).
	Held(ctx context.Context) ([]string, error)

	// Press presses key (an X keysym name on the current keymap) and leaves it down; Release lets
	// it go. Unlike every other method these hold state across calls: the caller must release
	// what it pressed (raw commands shiftdown:/shiftup:).
	Press(ctx context.Context, key string) error
	Release(ctx context.Context, key string) error
	// ButtonDown moves the pointer to p and presses button, leaving it down; ButtonUp moves to p
	// and releases it (raw commands mouse:down/up).
	ButtonDown(ctx context.Context, p Point, button Button) error
	ButtonUp(ctx context.Context, p Point, button Button) error
	// MoveTo moves the pointer to p; Pointer reports where it is.
	MoveTo(ctx context.Context, p Point) error
	Pointer(ctx context.Context) (Point, error)
	// Scroll turns the wheel where the pointer is, in clicks: dy > 0 down, dx > 0 right.
	Scroll(ctx context.Context, dx, dy int) error
}

// WindowOpKind names a window operation.
type WindowOpKind string

// Window operations.
const (
	OpMove     WindowOpKind = "move"
	OpResize   WindowOpKind = "resize"
	OpMinimize WindowOpKind = "minimize"
	OpMaximize WindowOpKind = "maximize"
	OpRestore  WindowOpKind = "restore"
	OpActivate WindowOpKind = "foreground" // raise and give input focus (_NET_ACTIVE_WINDOW)
)

// WindowOp is one window operation; X,Y for move and Width,Height for resize (client area).
type WindowOp struct {
	Kind                WindowOpKind
	X, Y, Width, Height int
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
	ProcessID   int    // _NET_WM_PID, else the X Resource extension's client pid; 0 when neither says
	Bounds      Rect
	Minimized   bool // _NET_WM_STATE_HIDDEN
	Maximized   bool // both _NET_WM_STATE_MAXIMIZED_VERT and _HORZ
	Fullscreen  bool
	Focused     bool // the _NET_ACTIVE_WINDOW
	Modal       bool // _NET_WM_STATE_MODAL: a dialog that blocks its parent

	TransientFor uint32 // WM_TRANSIENT_FOR, 0 when none
	Type         string // _NET_WM_WINDOW_TYPE without the prefix, lower case: "normal", "dialog", "utility", "splash", …; "" when unset
	// Server is what serves the window on a Wayland desktop: ServerWayland, or ServerXWayland
	// for an X11 program under the compositor's Xwayland; "" on an X11 desktop.
	Server string
}

// FindWindow picks the window with handle out of a listing; ErrWindowClosed when it is not
// there.
func FindWindow(ws []Window, handle uint32) (Window, error) {
	for _, w := range ws {
		if w.Handle == handle {
			return w, nil
		}
	}
	return Window{}, fmt.Errorf("%w: window %d", ErrWindowClosed, handle)
}

// The values of Window.Server.
const (
	ServerWayland  = "wayland"
	ServerXWayland = "xwayland"
)

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
	// MaxDepth is the levels below the root (depth 0) to walk, counted on meaningful nodes:
	// unnamed structural containers (panels, fillers, sections, scroll panes …) cost no depth,
	// so toolkits that nest them deeply show their content within the same limit. The walk
	// still stops at RawDepthCap(MaxDepth) levels.
	MaxDepth int
	MaxNodes int // nodes returned at most, root included
	// MaxChildren is the most children listed of any one node (0: no limit but MaxNodes); a
	// node with more reports how many it has (Node.ChildCount). Spreadsheets claim billions.
	MaxChildren int
	// Budget bounds the walk's time (0: only the caller's deadline); a walk that reaches it
	// returns the part it has, truncated by "time".
	Budget time.Duration
	// Lean walks read role, name, description and states only — no bounds, values, actions or
	// ids — for searches, which re-read the element they pick (a fraction of the calls). Where
	// a toolkit's text elements carry their text in no name (a web page's paragraphs in
	// Firefox), their text is read too: a change to it is a change an action's effect must see.
	Lean bool
	// Values, with Lean, reads the text of the elements whose text is their content rather than a
	// caption — text fields, documents, terminals, unnamed labels and paragraphs — as an action's
	// effect compares them (a calculator's display, a history cleared, a command's output).
	Values bool
	// Texts, with Lean, reads the value of every element that has one (text, a number, a combo
	// box's choice; passwords masked), as a search by text matches on it: a fraction of a full
	// walk's calls, which also reads bounds, actions and ids.
	Texts bool
	// Cells are table cells to visit by position in tables whose children the walk cuts (a
	// search for a spreadsheet cell by its address).
	Cells []Cell
	// ShowingOnly walks below showing objects only (closed menus, hidden pages are skipped).
	ShowingOnly bool
}

// Cell is a table cell's position, 0-based.
type Cell struct{ Row, Col int }

// layoutRoles are container roles that only group or lay out their children.
var layoutRoles = map[string]bool{
	"panel": true, "filler": true, "section": true, "form": true, "grouping": true, "viewport": true,
	"scroll pane": true, "layered pane": true, "root pane": true, "glass pane": true, "split pane": true,
	"redundant object": true, "unknown": true, "html container": true,
}

// LayoutRole reports a role that only groups or lays out its children: unnamed, such a node costs
// no depth (TreeLimits.MaxDepth) and the outline leaves it out.
func LayoutRole(role string) bool { return layoutRoles[role] }

// RawDepthCap is how many levels a walk descends at most for MaxDepth meaningful ones.
func RawDepthCap(maxDepth int) int { return min(4*maxDepth+8, 256) }

// Truncation limits, as Tree.TruncatedBy names them.
const (
	LimitMaxDepth    = "maxDepth"
	LimitMaxNodes    = "maxNodes"
	LimitMaxChildren = "maxChildren"
	LimitTime        = "time"
)

// Tree is the result of one walk.
type Tree struct {
	Root      *Node
	NodeCount int
	// Truncated is true when a limit cut off nodes that exist; TruncatedBy names the limits
	// that did (LimitMaxDepth …), in that order.
	Truncated   bool
	TruncatedBy []string
	// SkippedDead counts nodes that vanished during the walk and were left out.
	SkippedDead int
	// SecretsMasked counts password nodes whose text was replaced by a mask.
	SecretsMasked int
	// Skeleton, when set, says that the application published only a shell of its tree (a
	// Chromium page without renderer accessibility) and how to get the rest.
	Skeleton string
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
	// ChildCount is how many children the object reports when the walk listed fewer of them
	// (a limit cut it off); 0 otherwise.
	ChildCount int
}

// StateSet is the set of AT-SPI state names an object reports (e.g. "enabled", "showing").
type StateSet map[string]bool
