package tools_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"github.com/mcec/mcec/internal/sysload"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/agentguide"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/testdesk"
	"github.com/mcec/mcec/internal/tools"
)

var update = flag.Bool("update", false, "rewrite docs/tools.md from the catalog")

func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }

// harness is a daemon attached to the package's private desktop, as `mcec serve` would be.
type harness struct {
	t *testing.T
	d *daemon.Daemon
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The test desktop is attached (DISPLAY is set): the operator's opt-in is --allow-all.
	d, err := daemon.Start(ctx, daemon.Config{SessionsDir: t.TempDir(), Safety: safety.Settings{AllowAll: true}})
	if err != nil {
		t.Fatalf("daemon: %v", err)
	}
	if d.Private != nil {
		t.Fatal("the daemon started its own desktop instead of attaching to the test desktop")
	}
	t.Cleanup(func() { d.Close() })
	return &harness{t: t, d: d}
}

// call runs one tool and validates the envelope against the schema.
func (h *harness) call(tool string, args any) contract.Envelope {
	h.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callBudget(args))
	defer cancel()
	out, err := h.d.Dispatcher.Call(ctx, tool, raw)
	if err != nil {
		h.t.Fatalf("%s: %v", tool, err)
	}
	if t, ok := h.d.Dispatcher.Catalog().Lookup(tool); ok {
		b, err := out.Envelope.MarshalJSON()
		if err != nil {
			h.t.Fatal(err)
		}
		if err := t.CheckOutput(b); err != nil {
			h.t.Errorf("%v", err) // the result type (its schema) and what the tool answered differ
		}
	}
	return contracttest.Check(h.t, contracttest.CheckEnvelope(h.t, out.Envelope))
}

// callBudget is how long the harness lets a call run: 30 s, or the call's own timeout and
// 15 s more when it asks for longer (a LibreOffice launch with a fresh profile took 30 s beside
// a second make test, and the harness, not launch, cut it short).
func callBudget(args any) time.Duration {
	if m, ok := args.(map[string]any); ok {
		if ms, ok := m["timeout"].(int); ok && time.Duration(ms)*time.Millisecond > 15*time.Second {
			return time.Duration(ms)*time.Millisecond + 15*time.Second
		}
	}
	return sysload.Scale(30 * time.Second) // the product's own deadlines (tesseract's) stretch with the load
}

// callAsync runs one tool on another goroutine and delivers its raw envelope; the test
// goroutine validates it with check (t.Fatal must not run off the test goroutine).
func (h *harness) callAsync(tool string, args any) <-chan []byte {
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	out := make(chan []byte, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		o, err := h.d.Dispatcher.Call(ctx, tool, raw)
		if err != nil {
			out <- []byte(err.Error())
			return
		}
		b, _ := json.Marshal(o.Envelope)
		out <- b
	}()
	return out
}

// ok calls a tool that must succeed and decodes its result.
func (h *harness) ok(tool string, args any, result any) contract.Envelope {
	h.t.Helper()
	env := h.call(tool, args)
	if !env.OK() {
		h.t.Fatalf("%s %v failed: %+v", tool, args, env.Err())
	}
	if result != nil {
		if err := env.DecodeResult(result); err != nil {
			h.t.Fatal(err)
		}
	}
	return env
}

type window struct {
	Handle      uint32   `json:"handle"`
	Title       string   `json:"title"`
	ClassName   string   `json:"className"`
	ProcessName string   `json:"processName"`
	ProcessID   int      `json:"processId"`
	X           int      `json:"x"`
	Y           int      `json:"y"`
	Width       int      `json:"width"`
	Height      int      `json:"height"`
	State       []string `json:"state"`
}

type node struct {
	Ref         string  `json:"ref"`
	ControlType string  `json:"controlType"`
	Role        string  `json:"role"`
	Name        string  `json:"name"`
	X           *int    `json:"x"`
	Y           *int    `json:"y"`
	Width       *int    `json:"width"`
	Height      *int    `json:"height"`
	IsOffscreen bool    `json:"isOffscreen"`
	IsEnabled   bool    `json:"isEnabled"`
	IsFocused   bool    `json:"isFocused"`
	Value       *string `json:"value"`
	ToggleState string  `json:"toggleState"`
	IsSelected  *bool   `json:"isSelected"`
	Children    []*node `json:"children"`
}

func (n *node) walk(f func(*node)) {
	f(n)
	for _, c := range n.Children {
		c.walk(f)
	}
}

type captureResult struct {
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	Encoding   string `json:"encoding"`
	Bytes      int    `json:"bytes"`
	Base64     string `json:"base64"`
	Artifact   string `json:"artifact"`
	URI        string `json:"uri"`
	BlankCheck struct {
		Blank            bool    `json:"blank"`
		DominantFraction float64 `json:"dominantFraction"`
	} `json:"blankCheck"`
}

// startFactory launches gtk3-widget-factory and waits until its window and tree are there.
func startFactory(t *testing.T) *testdesk.Proc {
	p := testdesk.Start(t, "gtk3-widget-factory")
	testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	return p
}

func TestWidgetFactory(t *testing.T) {
	h := newHarness(t)
	p := startFactory(t)
	target := map[string]any{"pid": p.PID}

	var win window
	t.Run("windows", func(t *testing.T) {
		h.t = t
		var res struct {
			Count   int      `json:"count"`
			Windows []window `json:"windows"`
		}
		h.ok("windows", map[string]any{"process": "gtk3-widget-factory"}, &res)
		if res.Count != 1 || len(res.Windows) != 1 {
			t.Fatalf("want the factory's one window, got %+v", res)
		}
		win = h.settledWindow(p.PID)
		if win.ProcessID != p.PID || win.Width < 100 || win.Height < 100 || win.Handle == 0 || len(win.State) == 0 {
			t.Errorf("window %+v", win)
		}
		var all struct{ Count int }
		h.ok("windows", map[string]any{}, &all)
		if all.Count < 1 {
			t.Errorf("unfiltered listing has %d windows", all.Count)
		}
	})

	t.Run("query", func(t *testing.T) {
		h.t = t
		var res struct {
			Window    window `json:"window"`
			NodeCount int    `json:"nodeCount"`
			Truncated bool   `json:"truncated"`
			Tree      *node  `json:"tree"`
		}
		env := h.ok("query", map[string]any{"pid": p.PID, "maxDepth": 30, "maxNodes": 5000}, &res)
		if res.Tree == nil || res.NodeCount < 100 {
			t.Fatalf("tree of %d nodes", res.NodeCount)
		}
		// "Page 1" is the stack switcher's button; the notebook's tabs are "page 1", "page 2"….
		want := map[string]string{"togglebutton": "toggle button", "checkbutton": "check box", "Page 1": "radio button", "page 1": "page tab"}
		found := map[string]bool{}
		count := 0
		res.Tree.walk(func(n *node) {
			count++
			if n.Ref == "" || n.Role == "" || n.ControlType == "" {
				t.Errorf("node without identity: %+v", n)
			}
			role, wanted := want[n.Name]
			if !wanted || (role != "" && n.Role != role) || n.IsOffscreen {
				return
			}
			found[n.Name] = true
			if n.X == nil || n.Width == nil || *n.Width <= 0 {
				t.Errorf("%s has no bounds", n.Name)
				return
			}
			if *n.X < win.X || *n.Y < win.Y || *n.X+*n.Width > win.X+win.Width || *n.Y+*n.Height > win.Y+win.Height {
				t.Errorf("%s at (%d,%d %dx%d) lies outside the window %+v", n.Name, *n.X, *n.Y, *n.Width, *n.Height, win)
			}
		})
		for name := range want {
			if !found[name] {
				t.Errorf("no showing node named %q", name)
			}
		}
		if count != res.NodeCount {
			t.Errorf("nodeCount %d but the tree has %d nodes", res.NodeCount, count)
		}
		if res.Truncated || contracttest.HasWarning(env, contract.WarnTreeTruncated) {
			t.Errorf("a generous query was truncated")
		}
		// A clipped walk says so.
		var small struct {
			NodeCount int  `json:"nodeCount"`
			Truncated bool `json:"truncated"`
		}
		env = h.ok("query", map[string]any{"pid": p.PID, "maxNodes": 10}, &small)
		if !small.Truncated || small.NodeCount > 10 || !contracttest.HasWarning(env, contract.WarnTreeTruncated) {
			t.Errorf("maxNodes 10: %+v warnings %v", small, env.Warnings())
		}
	})

	t.Run("capture window", func(t *testing.T) {
		h.t = t
		var res captureResult
		env := h.ok("capture", target, &res)
		if res.Width != win.Width || res.Height != win.Height || res.BlankCheck.Blank || res.Encoding != "png" {
			t.Fatalf("capture %dx%d blank=%v, window %dx%d", res.Width, res.Height, res.BlankCheck.Blank, win.Width, win.Height)
		}
		pngBytes, err := base64.StdEncoding.DecodeString(res.Base64)
		if err != nil || len(pngBytes) != res.Bytes {
			t.Fatalf("base64: %v, %d bytes vs %d", err, len(pngBytes), res.Bytes)
		}
		img, err := png.Decode(bytes.NewReader(pngBytes))
		if err != nil || img.Bounds().Dx() != res.Width {
			t.Fatalf("png: %v", err)
		}
		if onDisk, err := os.ReadFile(res.Artifact); err != nil || !bytes.Equal(onDisk, pngBytes) {
			t.Fatalf("artifact %s: %v", res.Artifact, err)
		}
		if !strings.HasPrefix(filepath.Base(res.Artifact), "capture-") || !strings.Contains(res.Artifact, env.SessionID()) {
			t.Errorf("artifact path %s", res.Artifact)
		}

		// Downscaled and path-only.
		var small captureResult
		h.ok("capture", map[string]any{"pid": p.PID, "maxWidth": 200, "pathOnly": true}, &small)
		if small.Width != 200 || small.Base64 != "" || small.Artifact == "" {
			t.Errorf("pathOnly maxWidth 200: %+v", small)
		}
	})

	t.Run("last observation after a failure", func(t *testing.T) {
		h.t = t
		var res captureResult
		h.ok("capture", map[string]any{"pid": p.PID, "pathOnly": true}, &res)
		env := h.call("query", map[string]any{"window": "no such window anywhere"})
		e := contracttest.Fail(t, env, contract.NoTarget, contract.CodeWindowNotFound)
		obs, _ := json.Marshal(e.LastObservation)
		var summary struct {
			Kind     string `json:"kind"`
			Artifact string `json:"artifact"`
			Width    int    `json:"width"`
		}
		if err := json.Unmarshal(obs, &summary); err != nil || summary.Kind != "capture-summary" || summary.Artifact != res.Artifact {
			t.Fatalf("lastObservation %s", obs)
		}
		if strings.Contains(string(obs), "base64") {
			t.Errorf("lastObservation carries base64")
		}
		if _, err := os.Stat(summary.Artifact); err != nil {
			t.Errorf("artifact: %v", err)
		}
	})

	t.Run("empty region warns", func(t *testing.T) {
		h.t = t
		// The root's bottom-right corner, clear of the factory window.
		var disp struct {
			VirtualBounds struct{ Width, Height int } `json:"virtualBounds"`
		}
		h.ok("displays", map[string]any{}, &disp)
		region := map[string]int{"x": disp.VirtualBounds.Width - 40, "y": disp.VirtualBounds.Height - 30, "width": 40, "height": 30}
		if win.X+win.Width > region["x"] && win.Y+win.Height > region["y"] {
			t.Skipf("the factory window %+v covers the corner", win)
		}
		var res captureResult
		env := h.ok("capture", map[string]any{"region": region}, &res)
		if !res.BlankCheck.Blank || !contracttest.HasWarning(env, contract.WarnCaptureBlank) || res.Width != 40 {
			t.Fatalf("empty region: %+v warnings %v", res, env.Warnings())
		}
	})
}

func TestBlankWindowsFail(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name string
		rgb  uint32
		code contract.Code
	}{
		{"black", 0x000000, contract.CodeFrameAllBlack},
		{"white", 0xffffff, contract.CodeFrameMostlyBlank},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.t = t
			handle := testdesk.SolidWindow(t, "mcec blank "+tt.name, tt.rgb, 160, 120)
			env := h.call("capture", map[string]any{"handle": handle})
			e := contracttest.Fail(t, env, contract.CaptureBlank, tt.code)
			part, _ := json.Marshal(e.PartialResult)
			var res captureResult
			if err := json.Unmarshal(part, &res); err != nil || res.Base64 == "" || !res.BlankCheck.Blank || res.Width != 160 {
				t.Fatalf("partialResult %s", part)
			}
			if _, err := png.Decode(base64.NewDecoder(base64.StdEncoding, strings.NewReader(res.Base64))); err != nil {
				t.Fatalf("suspect PNG does not decode: %v", err)
			}
		})
	}
}

func TestTargetingErrors(t *testing.T) {
	h := newHarness(t)
	a := testdesk.SolidWindow(t, "mcec twin", 0x336699, 100, 80)
	testdesk.SolidWindow(t, "mcec twin", 0x336699, 100, 80)
	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		category contract.Category
		code     contract.Code
	}{
		{"no selector", "query", map[string]any{}, contract.InvalidArgument, contract.CodeBadArguments},
		{"no match", "capture", map[string]any{"window": "nothing has this title"}, contract.NoTarget, contract.CodeWindowNotFound},
		{"two matches", "query", map[string]any{"window": "MCEC TWIN"}, contract.AmbiguousSelector, contract.SelectorMatched(2)},
		{"closed handle", "capture", map[string]any{"handle": 4194303}, contract.StaleElement, contract.CodeWindowClosed},
		{"no tree", "query", map[string]any{"handle": a}, contract.NoTarget, contract.CodeNoAccessibleTree},
		{"region too large", "capture", map[string]any{"region": map[string]int{"x": 0, "y": 0, "width": 16385, "height": 10}}, contract.InvalidArgument, contract.CodeRegionTooLarge},
		{"region too many pixels", "capture", map[string]any{"region": map[string]int{"x": 0, "y": 0, "width": 16000, "height": 16000}}, contract.InvalidArgument, contract.CodeRegionTooLarge},
		{"region off screen", "capture", map[string]any{"region": map[string]int{"x": -500, "y": 0, "width": 100, "height": 100}}, contract.InvalidArgument, contract.CodeRegionOutOfBounds},
		{"bad scale", "capture", map[string]any{"scale": 1.5}, contract.InvalidArgument, contract.CodeBadArguments},
		{"bad maxNodes", "query", map[string]any{"handle": a, "maxNodes": 0}, contract.InvalidArgument, contract.CodeBadArguments},
		{"unknown argument", "windows", map[string]any{"titel": "x"}, contract.InvalidArgument, contract.CodeBadArguments},
		{"unknown session", "windows", map[string]any{"sessionId": "s-ffffffffffff"}, contract.InvalidArgument, contract.CodeUnknownSession},
		// Empty selectors are mistakes, not "no target" (which would widen to the whole screen).
		{"handle 0", "capture", map[string]any{"handle": 0}, contract.InvalidArgument, contract.CodeBadArguments},
		{"empty window", "click", map[string]any{"window": "", "at": map[string]int{"x": 1, "y": 1}}, contract.InvalidArgument, contract.CodeBadArguments},
		{"empty process", "windows", map[string]any{"process": ""}, contract.InvalidArgument, contract.CodeBadArguments},
		{"pid 0", "query", map[string]any{"pid": 0}, contract.InvalidArgument, contract.CodeBadArguments},
		{"click off screen", "click", map[string]any{"at": map[string]int{"x": 100000, "y": 5}}, contract.InvalidArgument, contract.CodeBadArguments},
		{"drag off screen", "drag", map[string]any{"from": map[string]int{"x": 5, "y": 5}, "to": map[string]int{"x": -50, "y": 5}}, contract.InvalidArgument, contract.CodeBadArguments},
		{"move far off screen", "window", map[string]any{"handle": a, "action": "move", "x": 1000000000, "y": 0}, contract.InvalidArgument, contract.CodeBadArguments},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.t = t
			e := contracttest.Fail(t, h.call(tt.tool, tt.args), tt.category, tt.code)
			if tt.tool != "capture" && strings.Contains(tt.name, "off screen") && !strings.Contains(e.Detail, "1280x800") {
				t.Errorf("detail does not name the screen's bounds: %s", e.Detail)
			}
			if tt.code == contract.SelectorMatched(2) && strings.Count(e.Detail, "handle=") != 2 {
				t.Errorf("ambiguity detail does not list both candidates: %s", e.Detail)
			}
		})
	}
	t.Run("region clamped", func(t *testing.T) {
		h.t = t
		env := h.ok("capture", map[string]any{"region": map[string]int{"x": -10, "y": -10, "width": 50, "height": 50}, "pathOnly": true}, nil)
		if !contracttest.HasWarning(env, contract.WarnRegionClamped) {
			t.Errorf("no region-clamped warning: %v", env.Warnings())
		}
	})
}

func TestDisplays(t *testing.T) {
	h := newHarness(t)
	var res struct {
		Count         int `json:"count"`
		VirtualBounds struct{ X, Y, Width, Height int }
		Displays      []struct {
			Primary bool    `json:"primary"`
			DPI     float64 `json:"dpi"`
			Scale   float64 `json:"scale"`
			Bounds  struct{ X, Y, Width, Height int }
		} `json:"displays"`
	}
	h.ok("displays", nil, &res)
	if res.Count != 1 || res.VirtualBounds.Width != 1280 || res.VirtualBounds.Height != 800 ||
		!res.Displays[0].Primary || res.Displays[0].DPI <= 0 || res.Displays[0].Bounds.Width != 1280 {
		t.Fatalf("displays %+v", res)
	}
}

func TestSessions(t *testing.T) {
	h := newHarness(t)
	start := h.ok("session-start", nil, nil)
	id := start.SessionID()
	if env := h.ok("windows", map[string]any{"sessionId": id}, nil); env.SessionID() != id {
		t.Fatalf("call in session %s answered in %s", id, env.SessionID())
	}
	var st struct {
		SessionID string `json:"sessionId"`
		Calls     int    `json:"calls"`
	}
	h.ok("session-status", map[string]any{"sessionId": id}, &st)
	if st.SessionID != id || st.Calls < 1 {
		t.Fatalf("status %+v", st)
	}
	var end struct {
		Ended, AlreadyEnded bool
	}
	h.ok("session-end", map[string]any{"sessionId": id}, &end)
	if !end.Ended || end.AlreadyEnded {
		t.Fatalf("end %+v", end)
	}
	h.ok("session-end", map[string]any{"sessionId": id}, &end)
	if !end.AlreadyEnded {
		t.Fatalf("second end %+v", end)
	}
	contracttest.Fail(t, h.call("windows", map[string]any{"sessionId": id}), contract.InvalidArgument, contract.CodeUnknownSession)
	contracttest.Fail(t, h.call("session-status", map[string]any{"sessionId": id}), contract.InvalidArgument, contract.CodeUnknownSession)
	contracttest.Fail(t, h.call("session-end", map[string]any{"sessionId": "s-000000000000"}), contract.InvalidArgument, contract.CodeUnknownSession)

	// Calls without an id share the default session.
	a := h.ok("windows", nil, nil)
	b := h.ok("displays", nil, nil)
	if a.SessionID() != b.SessionID() || a.SessionID() == id {
		t.Fatalf("default session ids %s %s", a.SessionID(), b.SessionID())
	}
}

// TestReference keeps docs/tools.md equal to what the catalog says.
func TestReference(t *testing.T) {
	h := newHarness(t)
	got := tools.Reference(h.d.Dispatcher.Catalog())
	path := filepath.Join("..", "..", "docs", "tools.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != got {
		t.Fatalf("docs/tools.md is out of date (%v); run: go test ./internal/tools -run TestReference -update", err)
	}
}

// TestGuidanceCoversEveryCode fails when a tool can produce a code the agent guidance does not
// explain.
func TestGuidanceCoversEveryCode(t *testing.T) {
	cat := catalog.New()
	tools.Register(cat, &tools.Env{})
	for _, tool := range cat.Tools() {
		for _, code := range append(append([]contract.Code{}, tool.Errors...), tool.Warnings...) {
			if !strings.Contains(agentguide.Text, "`"+string(code)+"`") {
				t.Errorf("%s can produce %s, which AgentInstructions.md does not explain", tool.Name, code)
			}
		}
	}
	if !strings.Contains(agentguide.Text, "`selector-matched-N`") {
		t.Error("the guidance does not explain selector-matched-N")
	}
}
