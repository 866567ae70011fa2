package tools_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"github.com/mcec/mcec/internal/sysload"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/testdesk"
)

// decodeCapture decodes a capture result's inline PNG.
func decodeCapture(t *testing.T, res captureResult) image.Image {
	t.Helper()
	img, err := png.Decode(base64.NewDecoder(base64.StdEncoding, strings.NewReader(res.Base64)))
	if err != nil {
		t.Fatalf("capture PNG: %v", err)
	}
	return img
}

// captureImage captures args and decodes the PNG; a failure fails the test.
func (h *harness) captureImage(args map[string]any) (image.Image, contract.Envelope) {
	h.t.Helper()
	var res captureResult
	env := h.ok("capture", args, &res)
	return decodeCapture(h.t, res), env
}

// appWindow returns the window of pid as the windows tool describes it.
func (h *harness) appWindow(pid int) window {
	h.t.Helper()
	var res struct{ Windows []window }
	h.ok("windows", map[string]any{"pid": pid}, &res)
	if len(res.Windows) != 1 {
		h.t.Fatalf("pid %d has %d windows", pid, len(res.Windows))
	}
	return res.Windows[0]
}

// settledWindow is pid's one window once its geometry has held for 500 ms: the widget
// factory may still resize itself after it maps (seen beside a second make test: 1225 then
// 1277 px wide), and a region taken from the first geometry then misses its target.
func (h *harness) settledWindow(pid int) window {
	h.t.Helper()
	var win window
	var since time.Time
	testdesk.WaitFor(h.t, 30*time.Second, "the window's geometry to hold for 500 ms", func() bool {
		w := h.appWindow(pid)
		if w.X != win.X || w.Y != win.Y || w.Width != win.Width || w.Height != win.Height || since.IsZero() {
			win, since = w, time.Now()
			return false
		}
		return time.Since(since) >= 500*time.Millisecond
	})
	return win
}

func isRed(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 > 0xc0 && g>>8 < 0x30 && b>>8 < 0x30
}

// screenShowsRed reports whether the screen at absolute (x, y) is the cover's red.
func (h *harness) screenShowsRed(x, y int) bool {
	img, _ := h.captureImage(map[string]any{"region": map[string]int{"x": x, "y": y, "width": 1, "height": 1}})
	return isRed(img.At(img.Bounds().Min.X, img.Bounds().Min.Y))
}

// TestCoveredWindowCapture: a window half covered by another captures exactly as it does
// uncovered, on the covered half too (Composite), and without capture-fallback.
func TestCoveredWindowCapture(t *testing.T) {
	h := newHarness(t)
	app := startTestApp(t)
	win := h.appWindow(app.PID)
	h.ok("window", map[string]any{"handle": win.Handle, "action": "move", "x": 100, "y": 100}, nil)
	win = h.appWindow(app.PID)
	half := win.Width / 2
	cover := testdesk.SolidWindow(t, "mcec cover", 0xdd0000, half, win.Height+40)
	// The cover keeps the focus throughout, so the app stays in the same (backdrop) look.
	h.ok("window", map[string]any{"handle": cover, "action": "foreground"}, nil)

	moveCover := func(x, y int) {
		h.ok("window", map[string]any{"handle": cover, "action": "move", "x": x, "y": y}, nil)
		h.ok("window", map[string]any{"handle": cover, "action": "foreground"}, nil)
	}
	probeX, probeY := win.X+half/2, win.Y+win.Height/2
	// The pointer rests on the bare root window: over one of the app's buttons it would light
	// that button up only while the cover is away (CI saw the "Open dialog" button differ).
	h.ok("send_command", map[string]any{"command": "mouse:mtp,5,5"}, nil)

	// Losing the focus starts GTK's backdrop transition: wait until the app's pixels on screen
	// have settled (unchanged for half a second), without capturing the window itself, so the
	// first window capture below redirects it while it is covered.
	moveCover(900, 500)
	rect := map[string]int{"x": win.X, "y": win.Y, "width": win.Width, "height": win.Height}
	var last []byte
	var since time.Time
	testdesk.WaitFor(t, 15*time.Second, "the app's pixels did not settle", func() bool {
		var res captureResult
		h.ok("capture", map[string]any{"region": rect}, &res)
		if res.Base64 != string(last) {
			last, since = []byte(res.Base64), time.Now()
		}
		return time.Since(since) >= 500*time.Millisecond
	})

	moveCover(win.X, win.Y-20)
	testdesk.WaitFor(t, 10*time.Second, "the cover did not cover the app's left half", func() bool { return h.screenShowsRed(probeX, probeY) })
	covered, env := h.captureImage(map[string]any{"handle": win.Handle})
	if contracttest.HasWarning(env, contract.WarnCaptureFallback) {
		t.Fatalf("capture fell back to the screen: %v", env.Warnings())
	}

	moveCover(900, 500)
	testdesk.WaitFor(t, 10*time.Second, "the cover did not move away", func() bool { return !h.screenShowsRed(probeX, probeY) })
	uncovered, _ := h.captureImage(map[string]any{"handle": win.Handle})

	if covered.Bounds() != uncovered.Bounds() {
		t.Fatalf("sizes differ: %v vs %v", covered.Bounds(), uncovered.Bounds())
	}
	diff, red := 0, 0
	for y := 0; y < win.Height; y++ {
		for x := 0; x < half; x++ {
			a, b := covered.At(x, y), uncovered.At(x, y)
			if a != b {
				diff++
			}
			if isRed(a) {
				red++
			}
		}
	}
	if diff != 0 || red != 0 {
		if dir := os.Getenv("MCEC_TEST_DUMP"); dir != "" {
			for name, img := range map[string]image.Image{"covered.png": covered, "uncovered.png": uncovered} {
				f, _ := os.Create(filepath.Join(dir, name))
				_ = png.Encode(f, img)
				f.Close()
			}
		}
		t.Fatalf("covered half: %d pixels differ from the uncovered capture, %d are the cover's red", diff, red)
	}
}

// TestMinimizedWindowCapture: a minimized window is restored, captured non-blank, warned about;
// restoreMinimized:false minimizes it again.
func TestMinimizedWindowCapture(t *testing.T) {
	h := newHarness(t)
	app := startTestApp(t)
	win := h.appWindow(app.PID)
	minimized := func() bool { return contains(h.appWindow(app.PID).State, "minimized") }

	for _, tt := range []struct {
		name           string
		restore        any
		minimizedAfter bool
	}{
		{"stays restored", nil, false},
		{"minimized again", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h.t = t
			h.ok("window", map[string]any{"handle": win.Handle, "action": "minimize"}, nil)
			testdesk.WaitFor(t, 10*time.Second, "the window was not minimized", minimized)
			args := map[string]any{"handle": win.Handle, "pathOnly": true}
			if tt.restore != nil {
				args["restoreMinimized"] = tt.restore
			}
			var res captureResult
			env := h.ok("capture", args, &res)
			if !contracttest.HasWarning(env, contract.WarnMinimizedWindow) {
				t.Errorf("no minimized-window warning: %v", env.Warnings())
			}
			if res.BlankCheck.Blank || res.Width != win.Width || res.Height != win.Height {
				t.Errorf("capture of a minimized window: %+v", res)
			}
			testdesk.WaitFor(t, 10*time.Second, "window state after the capture", func() bool { return minimized() == tt.minimizedAfter })
		})
	}
}

// mcpClient connects a Go SDK client to the harness's MCP server, over in-memory transports.
func mcpClient(t *testing.T, h *harness) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := h.d.MCPServer("stdio").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestPathOnlyOverMCP: pathOnly capture results carry no image bytes anywhere in the MCP
// response, neither in the envelope's text block nor as an image block.
func TestPathOnlyOverMCP(t *testing.T) {
	h := newHarness(t)
	app := startTestApp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := mcpClient(t, h)

	for _, args := range []map[string]any{
		{"pid": app.PID, "pathOnly": true},
		{"pid": app.PID, "returnImage": false},
		{"region": map[string]int{"x": 0, "y": 0, "width": 200, "height": 100}, "pathOnly": true},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "capture", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 1 {
			t.Fatalf("%v: %d content blocks, want the envelope only", args, len(res.Content))
		}
		text, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			t.Fatalf("%v: content is %T", args, res.Content[0])
		}
		env := contracttest.Check(t, []byte(text.Text))
		var cr captureResult
		if err := env.DecodeResult(&cr); err != nil {
			t.Fatal(err)
		}
		onDisk, err := os.ReadFile(cr.Artifact)
		if err != nil {
			t.Fatalf("%v: artifact: %v", args, err)
		}
		b64 := base64.StdEncoding.EncodeToString(onDisk)
		if cr.Base64 != "" || strings.Contains(text.Text, "base64") || strings.Contains(text.Text, b64[:64]) {
			t.Fatalf("%v: the response carries image bytes: %.300s", args, text.Text)
		}
	}
}

// TestCaptureLinkOverMCP: link:true answers with a resource_link instead of the bytes, and
// resources/read returns exactly the artifact's bytes.
func TestCaptureLinkOverMCP(t *testing.T) {
	h := newHarness(t)
	app := startTestApp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := mcpClient(t, h)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "capture", Arguments: map[string]any{"pid": app.PID, "link": true}})
	if err != nil || res.IsError {
		t.Fatalf("capture: %v %+v", err, res)
	}
	if len(res.Content) != 2 {
		t.Fatalf("%d content blocks, want the envelope and a link", len(res.Content))
	}
	env := contracttest.Check(t, []byte(res.Content[0].(*mcp.TextContent).Text))
	var cr captureResult
	if err := env.DecodeResult(&cr); err != nil {
		t.Fatal(err)
	}
	link, ok := res.Content[1].(*mcp.ResourceLink)
	if !ok || link.URI != cr.URI || cr.Base64 != "" || link.MIMEType != "image/png" || link.Size == nil || *link.Size != int64(cr.Bytes) {
		t.Fatalf("block %#v for result %+v", res.Content[1], cr)
	}
	onDisk, err := os.ReadFile(cr.Artifact)
	if err != nil {
		t.Fatal(err)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read.Contents[0].Blob, onDisk) {
		t.Errorf("resources/read gave %d bytes, the artifact has %d", len(read.Contents[0].Blob), len(onDisk))
	}
}

type recordResult struct {
	State         string `json:"state"`
	File          string `json:"file"`
	Frames        int    `json:"frames"`
	DurationMs    int64  `json:"durationMs"`
	FPS           int    `json:"fps"`
	Width         int    `json:"width"`
	Height        int    `json:"height"`
	Bytes         int    `json:"bytes"`
	StopReason    string `json:"stopReason"`
	MaxDurationMs int64  `json:"maxDurationMs"`
	Target        struct {
		Window *window `json:"window"`
		Region *struct{ X, Y, Width, Height int }
	} `json:"target"`
}

func readGIF(t *testing.T, path string) *gif.GIF {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("GIF89a")) {
		t.Fatalf("%s does not start with GIF89a", path)
	}
	g, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

func TestRecord(t *testing.T) {
	h := newHarness(t)
	app := startTestApp(t)
	win := h.appWindow(app.PID)

	t.Run("oneshot", func(t *testing.T) {
		h.t = t
		var res recordResult
		env := h.ok("record", map[string]any{"pid": app.PID, "action": "oneshot", "durationMs": 1000, "fps": 5}, &res)
		// Frames are grabbed on a clock, and a grab that runs late skips its tick: on a loaded
		// machine (load 8 on 2 cores) 3 of 5 were made. The count is what was made, either way.
		minFrames := 4
		if sysload.Factor() > 1 {
			minFrames = 2
		}
		if res.Frames < minFrames || res.FPS != 5 || res.DurationMs < 1000 || res.State != "stopped" || res.StopReason != "duration" {
			t.Fatalf("one-shot of 1 s at 5 fps: %+v", res)
		}
		if res.Width != win.Width || res.Height != win.Height || res.Target.Window == nil || res.Target.Window.Handle != win.Handle {
			t.Errorf("size or target: %+v", res)
		}
		if !strings.HasPrefix(filepath.Base(res.File), "record-") || !strings.Contains(res.File, env.SessionID()) {
			t.Errorf("file %s is not in the session's artifact directory", res.File)
		}
		g := readGIF(t, res.File)
		if len(g.Image) != res.Frames || g.LoopCount != 0 {
			t.Errorf("GIF: %d frames (result %d), loop count %d", len(g.Image), res.Frames, g.LoopCount)
		}
		if st, _ := os.Stat(res.File); st == nil || int(st.Size()) != res.Bytes {
			t.Errorf("bytes %d vs file %v", res.Bytes, st)
		}
	})

	t.Run("start and stop", func(t *testing.T) {
		h.t = t
		contracttest.Fail(t, h.call("record", map[string]any{"action": "stop"}), contract.InvalidArgument, contract.CodeNoRecording)
		// A plain name: files are written only in the session's artifact directory.
		var started recordResult
		env := h.ok("record", map[string]any{"action": "start", "region": map[string]int{"x": win.X, "y": win.Y, "width": 100, "height": 60},
			"fps": 100, "file": "region.gif"}, &started)
		file := started.File
		if !contracttest.HasWarning(env, contract.WarnLimitsClamped) || started.FPS != 30 || started.State != "recording" || filepath.Base(file) != "region.gif" {
			t.Fatalf("start at 100 fps: %+v, warnings %v", started, env.Warnings())
		}
		contracttest.Fail(t, h.call("record", map[string]any{"pid": app.PID, "action": "start"}), contract.InvalidArgument, contract.CodeRecordingInProgress)
		var stopped recordResult
		h.ok("record", map[string]any{"action": "stop"}, &stopped)
		if stopped.File != file || stopped.Frames < 1 || stopped.Width != 100 || stopped.Height != 60 || stopped.StopReason != "stopped" {
			t.Fatalf("stop: %+v", stopped)
		}
		readGIF(t, file)
		contracttest.Fail(t, h.call("record", map[string]any{"action": "stop"}), contract.InvalidArgument, contract.CodeNoRecording)
	})

	t.Run("auto-stopped recording", func(t *testing.T) {
		h.t = t
		var a recordResult
		h.ok("record", map[string]any{"pid": app.PID, "action": "start", "durationMs": 300}, &a)
		testdesk.WaitFor(t, 10*time.Second, "the recording did not stop by itself", func() bool {
			_, err := os.Stat(a.File)
			return err == nil
		})
		var got recordResult
		h.ok("record", map[string]any{"action": "stop"}, &got)
		if got.File != a.File || got.StopReason != "duration" {
			t.Fatalf("stop after the limit: %+v", got)
		}
		contracttest.Fail(t, h.call("record", map[string]any{"action": "stop"}), contract.InvalidArgument, contract.CodeNoRecording)

		// Never fetched: the next recording discards it, and says so.
		h.ok("record", map[string]any{"pid": app.PID, "action": "start", "durationMs": 200}, &a)
		testdesk.WaitFor(t, 10*time.Second, "the recording did not stop by itself", func() bool {
			_, err := os.Stat(a.File)
			return err == nil
		})
		env := h.ok("record", map[string]any{"pid": app.PID, "durationMs": 200}, nil)
		if !contracttest.HasWarning(env, contract.WarnUnfetchedRecordingDiscarded) {
			t.Fatalf("no unfetched-recording-discarded: %v", env.Warnings())
		}
		contracttest.Fail(t, h.call("record", map[string]any{"action": "stop"}), contract.InvalidArgument, contract.CodeNoRecording)
	})

	t.Run("errors", func(t *testing.T) {
		h.t = t
		for _, tt := range []struct {
			args map[string]any
			cat  contract.Category
			code contract.Code
		}{
			{map[string]any{"action": "pause"}, contract.InvalidArgument, contract.CodeActionUnknown},
			{map[string]any{"region": map[string]int{"x": 0, "y": 0, "width": 20000, "height": 10}}, contract.InvalidArgument, contract.CodeRegionTooLarge},
			{map[string]any{"pid": app.PID, "fps": -1}, contract.InvalidArgument, contract.CodeBadArguments},
			{map[string]any{"pid": app.PID, "file": "/no/such/dir/x.gif"}, contract.InvalidArgument, contract.CodePathNotAllowed},
			{map[string]any{"window": "no window has this title"}, contract.NoTarget, contract.CodeWindowNotFound},
		} {
			contracttest.Fail(t, h.call("record", tt.args), tt.cat, tt.code)
		}
	})
}

type getTextResult struct {
	Text      string `json:"text"`
	LineCount int    `json:"lineCount"`
	WordCount int    `json:"wordCount"`
	Region    struct{ X, Y, Width, Height int }
}

func TestGetText(t *testing.T) {
	h := newHarness(t)
	p := startFactory(t)
	win := h.settledWindow(p.PID)
	for _, label := range []string{"togglebutton", "checkbutton"} {
		t.Run(label, func(t *testing.T) {
			h.t = t
			// The element's bounds and the window's geometry from one moment: under load the
			// factory grew to the screen's width seconds after it mapped, and openbox moved it
			// 15 px left (the region then cut "checkbutton" short).
			var n *node
			testdesk.WaitFor(t, 10*time.Second, "the window to hold while its element is read", func() bool {
				n = h.findOne(p.PID, map[string]any{"name": label, "index": 0})
				now := h.appWindow(p.PID)
				same := now.X == win.X && now.Y == win.Y && now.Width == win.Width && now.Height == win.Height
				win = now
				return same
			})
			if n.X == nil || n.Width == nil {
				t.Fatalf("%s has no bounds", label)
			}
			region := map[string]int{"x": *n.X - win.X - 4, "y": *n.Y - win.Y - 4, "width": *n.Width + 8, "height": *n.Height + 8}
			var res getTextResult
			h.ok("get-text", map[string]any{"pid": p.PID, "region": region}, &res)
			if !strings.Contains(strings.ToLower(res.Text), label) || res.LineCount < 1 || res.WordCount < 1 {
				t.Fatalf("get-text of %s's region %v: %+v", label, region, res)
			}
			if res.Region.X != region["x"] || res.Region.Width != region["width"] {
				t.Errorf("region %+v, asked %v", res.Region, region)
			}
		})
	}
	t.Run("no text", func(t *testing.T) {
		h.t = t
		// A horizontal slider: a groove and a knob, not blank, no letters.
		n := h.findOne(p.PID, h.usable(p.PID, map[string]any{"role": "slider"}))
		region := map[string]int{"x": *n.X - win.X, "y": *n.Y - win.Y, "width": *n.Width, "height": *n.Height}
		contracttest.Fail(t, h.call("get-text", map[string]any{"pid": p.PID, "region": region}), contract.NoTarget, contract.CodeOCRNoText)
	})
	t.Run("blank", func(t *testing.T) {
		h.t = t
		handle := testdesk.SolidWindow(t, "mcec blank ocr", 0xffffff, 120, 80)
		contracttest.Fail(t, h.call("get-text", map[string]any{"handle": handle, "region": map[string]int{"x": 10, "y": 10, "width": 50, "height": 30}}),
			contract.CaptureBlank, contract.CodeFrameMostlyBlank)
	})
}

// TestAppWithoutTree: xterm exposes no accessibility tree; query says so and points to pixels,
// and capture works.
func TestAppWithoutTree(t *testing.T) {
	if _, err := os.Stat("/usr/bin/xterm"); err != nil {
		t.Skip("xterm is not installed (make test-deps installs it)")
	}
	h := newHarness(t)
	// Text on the whole screen, so the capture has something to show; cat then waits on the tty.
	p := testdesk.Start(t, "/usr/bin/xterm", "-e", "sh", "-c", "ls -l /usr/bin | head -60; exec cat")
	handle := testdesk.WaitWindow(t, p.PID, 20*time.Second)

	e := contracttest.Fail(t, h.call("query", map[string]any{"handle": handle}), contract.NoTarget, contract.CodeNoAccessibleTree)
	if !strings.Contains(e.Detail, "capture") || !strings.Contains(e.Detail, "pixel") {
		t.Errorf("detail does not point to capture and pixel input: %s", e.Detail)
	}
	var res captureResult
	testdesk.WaitFor(t, 10*time.Second, "xterm's capture stayed blank", func() bool {
		env := h.call("capture", map[string]any{"handle": handle, "pathOnly": true})
		if !env.OK() {
			return false
		}
		return env.DecodeResult(&res) == nil && !res.BlankCheck.Blank
	})
	if res.Width < 100 || res.Height < 100 {
		t.Errorf("capture %+v", res)
	}
}
