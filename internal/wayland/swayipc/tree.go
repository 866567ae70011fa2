package swayipc

// Rect is a rectangle in sway's layout coordinates (or, for WindowRect and DecoRect, relative
// to the container).
type Rect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Node is one node of sway's tree: the root, an output, a workspace, a container or a view.
//
// Which rectangle is the client area, as measured on sway 1.7 (TestLive) for floating
// xdg_shell GTK 3 windows without borders (default_border none): Rect is the client area in
// layout coordinates, the client's xdg window geometry, so a client-side shadow is left out (a
// window with a Gtk.HeaderBar is 400x347 for 400x300 of content: header bar in, shadow out);
// WindowRect is the client area's offset in Rect, 0,0 and the same size here (a border and a
// title bar would offset it); DecoRect is all zeros; Geometry is not where anything is: sway
// reports 0,0 and the view's natural size, the size it first asked for, unchanged by "resize
// set". Nothing in the tree tells where the surface (shadow included) starts. Border is "csd"
// for a window that draws its own decorations (a header bar) and "none" for the plain one;
// CurrentBorderWidth may read 2 with Border "none", so it says nothing about the offset.
type Node struct {
	ID                 int64             `json:"id"`
	Name               string            `json:"name"`
	Type               string            `json:"type"` // root, output, workspace, con, floating_con
	Layout             string            `json:"layout"`
	Orientation        string            `json:"orientation"`
	Percent            float64           `json:"percent"` // 0 where sway says null (the root, workspaces)
	Rect               Rect              `json:"rect"`
	WindowRect         Rect              `json:"window_rect"`
	DecoRect           Rect              `json:"deco_rect"`
	Geometry           Rect              `json:"geometry"`
	Urgent             bool              `json:"urgent"`
	Sticky             bool              `json:"sticky"`
	Marks              []string          `json:"marks"`
	Focused            bool              `json:"focused"`
	Focus              []int64           `json:"focus"`
	Border             string            `json:"border"`
	CurrentBorderWidth int               `json:"current_border_width"`
	FullscreenMode     int               `json:"fullscreen_mode"`
	Nodes              []*Node           `json:"nodes"`
	FloatingNodes      []*Node           `json:"floating_nodes"`
	Representation     string            `json:"representation"`
	PID                int               `json:"pid"`
	AppID              *string           `json:"app_id"` // nil for Xwayland views
	Visible            *bool             `json:"visible"`
	Shell              string            `json:"shell"` // xdg_shell, xwayland
	InhibitIdle        bool              `json:"inhibit_idle"`
	Window             *int              `json:"window"` // the X window of an Xwayland view
	WindowProperties   *WindowProperties `json:"window_properties"`
	IdleInhibitors     *IdleInhibitors   `json:"idle_inhibitors"`

	// Workspaces only.
	Num    int    `json:"num"`    // the workspace's number, -1 when its name has none
	Output string `json:"output"` // the workspace's output
}

// IdleInhibitors says what keeps a view from letting the session go idle.
type IdleInhibitors struct {
	Application string `json:"application"` // "enabled" or "none"
	User        string `json:"user"`        // "focus", "fullscreen", "open", "visible" or "none"
}

// WindowProperties are an Xwayland view's X properties.
type WindowProperties struct {
	Class        string `json:"class"`
	Instance     string `json:"instance"`
	Title        string `json:"title"`
	TransientFor *int   `json:"transient_for"`
	WindowRole   string `json:"window_role"`
	WindowType   string `json:"window_type"`
}

// Output is one output of GET_OUTPUTS.
type Output struct {
	Name             string  `json:"name"`
	Make             string  `json:"make"`
	Model            string  `json:"model"`
	Serial           string  `json:"serial"`
	Active           bool    `json:"active"`
	DPMS             bool    `json:"dpms"`
	Primary          bool    `json:"primary"`
	Scale            float64 `json:"scale"`
	Transform        string  `json:"transform"`
	CurrentWorkspace string  `json:"current_workspace"`
	Rect             Rect    `json:"rect"`
	CurrentMode      Mode    `json:"current_mode"`
	Modes            []Mode  `json:"modes"`
}

// Workspace is one workspace of GET_WORKSPACES.
type Workspace struct {
	ID      int64  `json:"id"`
	Num     int    `json:"num"`
	Name    string `json:"name"`
	Visible bool   `json:"visible"`
	Focused bool   `json:"focused"`
	Urgent  bool   `json:"urgent"`
	Rect    Rect   `json:"rect"`
	Output  string `json:"output"`
}

// Seat is one seat of GET_SEATS.
type Seat struct {
	Name         string        `json:"name"`
	Capabilities int           `json:"capabilities"` // wl_seat capabilities: 1 pointer, 2 keyboard, 4 touch
	Focus        int64         `json:"focus"`        // the focused node's ID, 0 for none
	Devices      []InputDevice `json:"devices"`
}

// InputDevice is an input device of a seat (GET_SEATS; GET_INPUTS has more fields).
type InputDevice struct {
	Identifier string `json:"identifier"` // vendor:product:name
	Name       string `json:"name"`
	Vendor     int    `json:"vendor"`
	Product    int    `json:"product"`
	Type       string `json:"type"` // keyboard, pointer, touch, tablet_tool, tablet_pad, switch
}

// Mode is an output mode.
type Mode struct {
	Width   int `json:"width"`
	Height  int `json:"height"`
	Refresh int `json:"refresh"` // mHz
}

// Walk calls f on n and its descendants, depth first, tiled children before floating ones;
// when f returns false it skips the node's descendants. parents are the node's ancestors,
// outermost first; f may keep the slice.
func (n *Node) Walk(f func(n *Node, parents []*Node) bool) {
	if n != nil {
		n.walk(nil, f)
	}
}

func (n *Node) walk(parents []*Node, f func(*Node, []*Node) bool) {
	if !f(n, parents) {
		return
	}
	// A slice of its own for the children, so that what f kept of a sibling's stays as it was.
	parents = append(parents[:len(parents):len(parents)], n)
	for _, kids := range [][]*Node{n.Nodes, n.FloatingNodes} {
		for _, k := range kids {
			if k != nil { // a JSON null among the children
				k.walk(parents, f)
			}
		}
	}
}

// View is an application window in the tree.
type View struct {
	Node       *Node
	Workspace  string // its workspace's name ("__i3_scratch" for the scratchpad)
	Output     string // its output's name ("__i3" for the scratchpad)
	Floating   bool
	Scratchpad bool // hidden in the scratchpad
}

// Views lists the application windows under n: tiled ones of each workspace first, then its
// floating ones in stacking order (bottom to top), as sway keeps them.
func (n *Node) Views() []View {
	var out []View
	n.Walk(func(k *Node, parents []*Node) bool {
		if !isView(k) {
			return true
		}
		v := View{Node: k, Floating: k.Type == "floating_con"}
		for _, p := range parents {
			switch p.Type {
			case "output":
				v.Output = p.Name
			case "workspace":
				v.Workspace = p.Name
			case "floating_con":
				v.Floating = true
			}
		}
		v.Scratchpad = v.Workspace == "__i3_scratch"
		out = append(out, v)
		return false
	})
	return out
}

// isView reports a container that holds an application's surface, not other containers.
func isView(n *Node) bool {
	if n.Type != "con" && n.Type != "floating_con" {
		return false
	}
	return n.PID > 0 || n.AppID != nil || n.Window != nil
}

// FindID returns the node of id under n, nil when there is none.
func (n *Node) FindID(id int64) *Node {
	var found *Node
	n.Walk(func(k *Node, _ []*Node) bool {
		if k.ID == id {
			found = k
		}
		return found == nil
	})
	return found
}
