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
// For a floating view on mcec's desktop (no border) Rect is the client area (the xdg window
// geometry) in layout coordinates and WindowRect the same size at 0,0; with a border and a title
// bar WindowRect is the client area's offset in Rect.
type Node struct {
	ID                 int64             `json:"id"`
	Name               string            `json:"name"`
	Type               string            `json:"type"` // root, output, workspace, con, floating_con
	Layout             string            `json:"layout"`
	Orientation        string            `json:"orientation"`
	Percent            float64           `json:"percent"`
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

// Mode is an output mode.
type Mode struct {
	Width   int `json:"width"`
	Height  int `json:"height"`
	Refresh int `json:"refresh"` // mHz
}

// Walk calls f on n and, while f returns true, on its children (tiled, then floating), depth
// first; parents are n's ancestors, outermost first.
func (n *Node) Walk(f func(n *Node, parents []*Node) bool) {
	n.walk(nil, f)
}

func (n *Node) walk(parents []*Node, f func(*Node, []*Node) bool) {
	if !f(n, parents) {
		return
	}
	parents = append(parents, n)
	for _, k := range n.Nodes {
		k.walk(parents, f)
	}
	for _, k := range n.FloatingNodes {
		k.walk(parents, f)
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
