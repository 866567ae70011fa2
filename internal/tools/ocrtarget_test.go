package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/testdesk"
)

type textBox struct {
	Text       string `json:"text"`
	X          int    `json:"x"`
	Y          int    `json:"y"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	Confidence *int   `json:"confidence"`
}

func (b textBox) inside(w window) bool {
	return b.Width > 0 && b.Height > 0 && b.X >= w.X && b.Y >= w.Y && b.X+b.Width <= w.X+w.Width && b.Y+b.Height <= w.Y+w.Height
}

func (b textBox) centre() (int, int) { return b.X + b.Width/2, b.Y + b.Height/2 }

type getTextOut struct {
	Text      string    `json:"text"`
	WordCount int       `json:"wordCount"`
	LineCount int       `json:"lineCount"`
	Window    *window   `json:"window"`
	Lines     []textBox `json:"lines"`
	Words     []textBox `json:"words"`
}

type findOut struct {
	Found   bool `json:"found"`
	Element *struct {
		node
		Description string `json:"description"`
	} `json:"element"`
	Window *window `json:"window"`
}

func (f findOut) box() textBox {
	e := f.Element
	return textBox{Text: e.Name, X: *e.X, Y: *e.Y, Width: *e.Width, Height: *e.Height}
}

func needOCR(t *testing.T) {
	t.Helper()
	needProgram(t, "tesseract")
}

// terminalText is what the test xterm shows: "beta" twice, for the index and ambiguity cases.
const terminalText = `printf "alpha beta\nrun done\nbeta gamma\n"; exec sleep 600`

// startTerminal starts an xterm with a large font showing terminalText and waits until OCR reads
// its last line, returning the window as get-text reported it.
func startTerminal(t *testing.T, h *harness) (uint32, window) {
	t.Helper()
	needProgram(t, "xterm")
	needOCR(t)
	p := testdesk.Start(t, "xterm", "-fa", "DejaVu Sans Mono", "-fs", "14", "-geometry", "40x6", "-e", "sh", "-c", terminalText)
	handle := testdesk.WaitWindow(t, p.PID, 20*time.Second)
	var res getTextOut
	testdesk.WaitFor(t, 15*time.Second, "OCR never read the xterm's text", func() bool {
		env := h.call("get-text", map[string]any{"handle": handle, "boxes": "none"})
		return env.OK() && env.DecodeResult(&res) == nil && strings.Contains(res.Text, "gamma")
	})
	return handle, *res.Window
}

// TestGetTextWords: get-text returns words and lines whose boxes are absolute, lie in the window,
// and carry the text shown; a region reads the same words at the same screen places.
func TestGetTextWords(t *testing.T) {
	h := newHarness(t)
	handle, win := startTerminal(t, h)

	var res getTextOut
	start := time.Now()
	h.ok("get-text", map[string]any{"handle": handle}, &res)
	t.Logf("window %dx%d read in %v: %q", win.Width, win.Height, time.Since(start).Round(time.Millisecond), res.Text)
	if len(res.Words) != res.WordCount || len(res.Lines) != res.LineCount {
		t.Errorf("%d words, %d lines; counts %d, %d", len(res.Words), len(res.Lines), res.WordCount, res.LineCount)
	}
	want := []string{"alpha", "beta", "run", "done", "beta", "gamma"}
	byText := map[string][]textBox{}
	for _, w := range res.Words {
		if !w.inside(win) {
			t.Errorf("word %+v lies outside the window %+v", w, win)
		}
		if w.Confidence == nil || *w.Confidence < 0 || *w.Confidence > 100 {
			t.Errorf("word %+v: confidence", w)
		}
		byText[strings.ToLower(w.Text)] = append(byText[strings.ToLower(w.Text)], w)
	}
	found := 0
	for _, w := range want {
		if len(byText[w]) > 0 {
			found++
		}
	}
	t.Logf("word accuracy: %d of %d expected words read", found, len(want))
	if found < len(want) || len(byText["beta"]) != 2 {
		t.Fatalf("words %+v; want %v", res.Words, want)
	}
	// Layout: alpha left of beta on one line, run below alpha, gamma on the third line.
	alpha, beta, run, gamma := byText["alpha"][0], byText["beta"][0], byText["run"][0], byText["gamma"][0]
	if _, ay := alpha.centre(); beta.X <= alpha.X+alpha.Width || ay < beta.Y || ay > beta.Y+beta.Height {
		t.Errorf("alpha %+v and beta %+v are not side by side", alpha, beta)
	}
	if run.Y <= alpha.Y+alpha.Height/2 || gamma.Y <= run.Y+run.Height/2 {
		t.Errorf("lines out of order: alpha %+v, run %+v, gamma %+v", alpha, run, gamma)
	}
	if len(res.Lines) < 3 || !strings.EqualFold(res.Lines[0].Text, "alpha beta") || !res.Lines[0].inside(win) {
		t.Errorf("lines %+v", res.Lines)
	}

	t.Run("region", func(t *testing.T) {
		h.t = t
		// The top half of the window, window-relative: the boxes still come back absolute.
		var part getTextOut
		h.ok("get-text", map[string]any{"handle": handle, "region": map[string]int{"x": 0, "y": 0, "width": win.Width, "height": win.Height / 2}}, &part)
		for _, w := range part.Words {
			if strings.EqualFold(w.Text, "alpha") {
				if d := max(abs(w.X-alpha.X), abs(w.Y-alpha.Y)); d > 3 {
					t.Errorf("alpha read in the region at %+v, in the window at %+v", w, alpha)
				}
				return
			}
		}
		t.Errorf("alpha not read in the region: %+v", part.Words)
	})

	t.Run("screen", func(t *testing.T) {
		h.t = t
		var all getTextOut
		start := time.Now()
		h.ok("get-text", map[string]any{"boxes": "lines"}, &all)
		t.Logf("whole screen read in %v (%d words)", time.Since(start).Round(time.Millisecond), all.WordCount)
		if len(all.Words) != 0 || len(all.Lines) == 0 {
			t.Errorf("boxes lines: %d words, %d lines", len(all.Words), len(all.Lines))
		}
	})

	t.Run("boxes", func(t *testing.T) {
		h.t = t
		var none getTextOut
		h.ok("get-text", map[string]any{"handle": handle, "boxes": "none"}, &none)
		if len(none.Words) != 0 || len(none.Lines) != 0 || !strings.Contains(none.Text, "alpha") {
			t.Errorf("boxes none: %+v", none)
		}
		contracttest.Fail(t, h.call("get-text", map[string]any{"handle": handle, "boxes": "all"}), contract.InvalidArgument, contract.CodeBadArguments)
	})
}

// TestScreenTextSelector: find, wait-for and click resolve {screenText} through OCR in an app
// with no tree; the element says it came from OCR and invoke is pointed to click.
func TestScreenTextSelector(t *testing.T) {
	h := newHarness(t)
	handle, win := startTerminal(t, h)

	var res findOut
	start := time.Now()
	h.ok("find", map[string]any{"handle": handle, "element": map[string]any{"screenText": "done"}}, &res)
	t.Logf("find screenText in %v", time.Since(start).Round(time.Millisecond))
	if !res.Found || res.Element == nil || res.Element.X == nil {
		t.Fatalf("find: %+v", res)
	}
	el := res.Element
	if !strings.HasPrefix(el.Ref, "ocr:") || el.Role != "ocr text" || !strings.Contains(el.Description, "OCR") ||
		!strings.EqualFold(el.Name, "done") || el.IsOffscreen {
		t.Errorf("element %+v", el)
	}
	done := res.box()
	if !done.inside(win) {
		t.Errorf("done at %+v, outside the window %+v", done, win)
	}
	if res.Window == nil || res.Window.Handle != handle {
		t.Errorf("window %+v", res.Window)
	}

	t.Run("phrase", func(t *testing.T) {
		h.t = t
		var p findOut
		h.ok("find", map[string]any{"handle": handle, "element": map[string]any{"screenText": "RUN done"}}, &p)
		if !p.Found {
			t.Fatalf("phrase not found: %+v", p)
		}
		if b := p.box(); b.X >= done.X || b.X+b.Width < done.X+done.Width-2 {
			t.Errorf("phrase box %+v does not span run..done (done at %+v)", b, done)
		}
	})

	t.Run("ref", func(t *testing.T) {
		h.t = t
		var again findOut
		h.ok("find", map[string]any{"element": map[string]any{"ref": el.Ref}}, &again)
		if !again.Found || abs(again.box().X-done.X) > 3 {
			t.Errorf("the ocr ref did not resolve again: %+v", again)
		}
		var gone findOut
		h.ok("find", map[string]any{"element": map[string]any{"ref": "ocr:1,1,30,12:nothing-here"}}, &gone)
		if gone.Found {
			t.Errorf("a ref to text that is not there: %+v", gone)
		}
	})

	t.Run("ambiguous", func(t *testing.T) {
		h.t = t
		e := contracttest.Fail(t, h.call("find", map[string]any{"handle": handle, "element": map[string]any{"screenText": "beta"}}),
			contract.AmbiguousSelector, contract.SelectorMatched(2))
		if strings.Count(e.Detail, " at ") != 2 || !strings.Contains(e.Detail, "index") {
			t.Errorf("detail does not list both places: %s", e.Detail)
		}
		var first, second findOut
		h.ok("find", map[string]any{"handle": handle, "element": map[string]any{"screenText": "beta", "index": 0}}, &first)
		h.ok("find", map[string]any{"handle": handle, "element": map[string]any{"screenText": "beta", "index": 1}}, &second)
		if !first.Found || !second.Found || second.box().Y <= first.box().Y {
			t.Errorf("index does not count in reading order: %+v then %+v", first.Element, second.Element)
		}
	})

	t.Run("miss", func(t *testing.T) {
		h.t = t
		var miss findOut
		h.ok("find", map[string]any{"handle": handle, "element": map[string]any{"screenText": "gamna"}}, &miss)
		if miss.Found {
			t.Errorf("found a word that is not there: %+v", miss)
		}
		e := contracttest.Fail(t, h.call("click", map[string]any{"handle": handle, "at": map[string]any{"screenText": "gamna"}}),
			contract.NoTarget, contract.CodeElementNotFound)
		if !strings.Contains(e.Detail, `"gamma"`) {
			t.Errorf("the miss does not say what OCR read nearby: %s", e.Detail)
		}
		contracttest.Fail(t, h.call("find", map[string]any{"handle": handle, "element": map[string]any{"screenText": "done", "name": "done"}}),
			contract.InvalidArgument, contract.CodeBadArguments)
	})

	t.Run("wait-for", func(t *testing.T) {
		h.t = t
		var w struct {
			findOut
			Condition string `json:"condition"`
		}
		h.ok("wait-for", map[string]any{"handle": handle, "element": map[string]any{"screenText": "gamma"}, "timeout": 10000}, &w)
		if !w.Found || !strings.HasPrefix(w.Element.Ref, "ocr:") {
			t.Errorf("wait-for: %+v", w)
		}
	})
}

// tkScript shows a big button that retitles its window when pressed, and a label: Tk has no
// accessibility tree, so only OCR can find the button by its text.
const tkScript = `wm title . "ocr click test"
wm geometry . +40+40
button .b -text "Launch rocket" -font {DejaVuSans 20} -command {wm title . "rocket launched"}
label .l -text "Status idle" -font {DejaVuSans 20}
pack .l .b -padx 30 -pady 20
`

// TestClickScreenText: click at {screenText} presses a Tk button by its label, seen
// independently in the window's title.
func TestClickScreenText(t *testing.T) {
	wish := needProgram(t, "wish")
	needOCR(t)
	h := newHarness(t)
	script := filepath.Join(t.TempDir(), "button.tcl")
	if err := os.WriteFile(script, []byte(tkScript), 0o644); err != nil {
		t.Fatal(err)
	}
	testdesk.Start(t, wish, script)
	// Tk sets no _NET_WM_PID: the window is found by its title.
	var handle uint32
	testdesk.WaitFor(t, 20*time.Second, "the Tk window did not appear", func() bool {
		var ws struct {
			Windows []window `json:"windows"`
		}
		env := h.call("windows", map[string]any{"window": "ocr click test"})
		if !env.OK() || env.DecodeResult(&ws) != nil || len(ws.Windows) != 1 {
			return false
		}
		handle = ws.Windows[0].Handle
		return true
	})
	testdesk.WaitFor(t, 15*time.Second, "OCR never read the Tk button", func() bool {
		var f findOut
		env := h.call("find", map[string]any{"handle": handle, "element": map[string]any{"screenText": "launch rocket"}})
		return env.OK() && env.DecodeResult(&f) == nil && f.Found
	})
	var res struct {
		Clicked bool   `json:"clicked"`
		At      [2]int `json:"at"`
	}
	h.ok("click", map[string]any{"handle": handle, "at": map[string]any{"screenText": "launch rocket"}}, &res)
	if !res.Clicked {
		t.Fatalf("click: %+v", res)
	}
	testdesk.WaitFor(t, 5*time.Second, "the button was not pressed: the title did not change", func() bool {
		var ws struct {
			Windows []window `json:"windows"`
		}
		h.ok("windows", map[string]any{"handle": handle}, &ws)
		return len(ws.Windows) == 1 && ws.Windows[0].Title == "rocket launched"
	})
}
