package traceview

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcec/mcec/internal/evidence"
)

// session writes a recorded session directory by hand: a click that changed the window, a
// capture, an operator's take-over, then a find that failed. The lines are chained as the
// recorder chains them.
func session(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "20261205-101500-s-0123456789ab")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	capture := filepath.Join(dir, "capture-20261205-101501000-1.png")
	// The frame kept after the click: the screen from (0,10) at half size.
	var frame bytes.Buffer
	if err := jpeg.Encode(&frame, image.NewGray(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}
	frameName := evidence.FrameName(1, "after")
	write(t, filepath.Join(dir, frameName), frame.Bytes())
	frameSum := sha256.Sum256(frame.Bytes())
	lines := []string{
		`{"seq":1,"kind":"request","at":"2026-12-05T10:15:00Z","tool":"click","args":{"x":40,"y":30,"process":"calc"}}`,
		`{"seq":1,"kind":"response","at":"2026-12-05T10:15:00.2Z","tool":"click","durationMs":200,"ok":true,"envelope":{"sessionId":"s-0123456789ab","ok":true,"result":{"at":[40,30],"effect":{"settledMs":150,"settled":true,"changed":[{"ref":"1:2","role":"label","name":"9","was":{"name":"0"}}],"added":2}}},` +
			`"frames":[{"when":"after","file":"` + frameName + `","sha256":"` + hex.EncodeToString(frameSum[:]) + `","x":0,"y":10,"scale":0.5}]}`,
		`{"seq":2,"kind":"request","at":"2026-12-05T10:15:01Z","tool":"capture","args":{"process":"calc"}}`,
		`{"seq":2,"kind":"response","at":"2026-12-05T10:15:01.1Z","tool":"capture","durationMs":100,"ok":true,"envelope":{"sessionId":"s-0123456789ab","ok":true,"result":{"artifact":"` + capture + `","width":8,"height":6}}}`,
		`{"seq":3,"kind":"operator","at":"2026-12-05T10:15:02Z","event":"take-control","how":"console"}`,
		`{"seq":3,"kind":"request","at":"2026-12-05T10:15:03Z","tool":"find","args":{"element":{"role":"push button","name":"Equals"},"process":"calc"}}`,
		`{"seq":3,"kind":"response","at":"2026-12-05T10:15:03.5Z","tool":"find","durationMs":500,"ok":false,"envelope":{"sessionId":"s-0123456789ab","ok":false,"error":{"category":"internal","code":"operator-in-control","detail":"the operator <b>has control</b>"}}}`,
	}
	var trace bytes.Buffer
	prev := strings.Repeat("0", 64)
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		m["prev"] = prev
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		trace.Write(append(b, '\n'))
		sum := sha256.Sum256(b)
		prev = hex.EncodeToString(sum[:])
	}
	write(t, filepath.Join(dir, evidence.TraceFile), trace.Bytes())
	sj, _ := json.Marshal(map[string]any{"sessionId": "s-0123456789ab", "ended": true, "calls": 3, "failures": 1,
		"trace": map[string]any{"lines": len(lines), "head": prev}})
	write(t, filepath.Join(dir, evidence.SessionFile), sj)
	write(t, filepath.Join(dir, evidence.SummaryFile), []byte("# FAIL\n"))
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 8, 6))); err != nil {
		t.Fatal(err)
	}
	write(t, capture, img.Bytes())
	return dir
}

func write(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, p string) *Page {
	t.Helper()
	b, err := evidence.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	return Build(b)
}

func TestTimeline(t *testing.T) {
	dir := session(t)
	p := open(t, dir)
	if !p.Verdict.Intact {
		t.Fatalf("verdict %+v, want intact", p.Verdict)
	}
	if len(p.Calls) != 4 {
		t.Fatalf("%d rows, want 4 (click, capture, operator, find): %+v", len(p.Calls), p.Calls)
	}
	click, capture, op, find := p.Calls[0], p.Calls[1], p.Calls[2], p.Calls[3]
	if !click.OK || click.Point == nil || *click.Point != [2]int{40, 30} {
		t.Errorf("click row %+v: want ok at (40,30)", click)
	}
	want := []string{`changed: label "9", name was "0"`, "elements: +2 appeared, −0 went", "watched 150 ms"}
	if strings.Join(click.Effect, "|") != strings.Join(want, "|") {
		t.Errorf("click effect %q, want %q", click.Effect, want)
	}
	if len(capture.Images) != 1 || capture.Images[0].Label != "capture" || len(capture.Images[0].Data) == 0 {
		t.Errorf("capture row images %+v, want the capture's PNG", capture.Images)
	}
	if op.Kind != "operator" || op.Tool != "take-control" {
		t.Errorf("row 3 %+v, want the operator's take-control", op)
	}
	if p.FirstFailure != 3 || find.OK || find.Code != "operator-in-control" || find.Target != `push button "Equals" in calc` {
		t.Errorf("first failure %d, find row %+v", p.FirstFailure, find)
	}

	var html bytes.Buffer
	if err := p.Write(&html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	for _, s := range []string{
		`id="call-3" open`, `<summary autofocus>call 3: find`, // opens on the first failure
		`data-intact="true"`, "data:image/png;base64,",
		"the operator &lt;b&gt;has control&lt;/b&gt;", // escaped, never markup
		"operator: take-control (console)",
	} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("page runs a script or loads something from elsewhere: it must be self-contained")
	}

	// The same from a bundle zip.
	zipPath := filepath.Join(t.TempDir(), "b.zip")
	if _, err := evidence.Zip(dir, zipPath); err != nil {
		t.Fatal(err)
	}
	z := open(t, zipPath)
	if z.Name != p.Name || len(z.Calls) != 4 || len(z.Calls[1].Images) != 1 || z.Summary != "# FAIL\n" {
		t.Errorf("from the zip: name %q, %d rows, summary %q", z.Name, len(z.Calls), z.Summary)
	}
}

func TestTamperedTraceIsFlagged(t *testing.T) {
	dir := session(t)
	tp := filepath.Join(dir, evidence.TraceFile)
	b, err := os.ReadFile(tp)
	if err != nil {
		t.Fatal(err)
	}
	// Rewrite history: the failed find becomes a success.
	b = bytes.Replace(b, []byte(`"durationMs":500,"envelope"`), []byte(`"durationMs":5,"envelope"`), 1)
	write(t, tp, b)
	p := open(t, dir)
	if p.Verdict.Intact || p.Verdict.BrokenLine != 7 || !strings.Contains(p.Verdict.Text, "BROKEN") {
		t.Fatalf("verdict %+v, want broken at line 7", p.Verdict)
	}
	if p.Calls[0].Broken || !p.Calls[3].Broken {
		t.Errorf("rows marked broken: click %v, find %v; want only the rows from line 7 on", p.Calls[0].Broken, p.Calls[3].Broken)
	}
	var html bytes.Buffer
	if err := p.Write(&html); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `data-intact="false"`) || !strings.Contains(html.String(), "tampered") {
		t.Error("the page does not flag the tampered trace")
	}
}

// Kept frames are shown with the click point drawn where it was on the screen, and a frame
// changed since it was recorded is flagged although the trace itself is intact.
func TestFrames(t *testing.T) {
	dir := session(t)
	p := open(t, dir)
	imgs := p.Calls[0].Images
	if len(imgs) != 1 || imgs[0].Label != "after" || imgs[0].Changed {
		t.Fatalf("click images %+v, want its after frame, unchanged", imgs)
	}
	o := overlayOf(p.Calls[0], imgs[0])
	if o == nil || o.W != 64 || o.H != 48 || o.Point == nil || *o.Point != [2]float64{20, 10} {
		t.Errorf("overlay %+v, want 64x48 with the point at (20,10)", o)
	}
	var html bytes.Buffer
	if err := p.Write(&html); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `<circle class="point" cx="20" cy="10"`) {
		t.Error("the page does not draw the click on the frame")
	}

	var other bytes.Buffer
	if err := jpeg.Encode(&other, image.NewGray(image.Rect(0, 0, 64, 48)), &jpeg.Options{Quality: 10}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, evidence.FrameName(1, "after")), other.Bytes())
	p = open(t, dir)
	if !p.Verdict.Intact || len(p.Calls[0].Images) != 1 || !p.Calls[0].Images[0].Changed {
		t.Errorf("a replaced frame: verdict %v, images %+v; want the chain intact and the frame flagged", p.Verdict.Intact, p.Calls[0].Images)
	}
}

// Whatever a trace holds, the viewer shows something and never fails or panics: a bundle may
// come from anyone.
func FuzzBuild(f *testing.F) {
	f.Add([]byte(`{"seq":1,"kind":"request","at":"2026-12-05T10:15:00Z","tool":"click","args":{"x":1},"prev":"` + strings.Repeat("0", 64) + `"}` + "\n"))
	f.Add([]byte("not json\n{}\n"))
	f.Add([]byte(`{"seq":1,"kind":"response","tool":"t","ok":true,"envelope":{"result":{"effect":{"changed":[{}],"window":{}}}},"prev":"x"}`))
	f.Fuzz(func(t *testing.T, trace []byte) {
		dir := filepath.Join(t.TempDir(), "20261205-101500-s-0123456789ab")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, evidence.TraceFile), trace)
		b, err := evidence.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		var html bytes.Buffer
		if err := Build(b).Write(&html); err != nil {
			t.Fatalf("the page did not render: %v", err)
		}
	})
}

// A huge envelope is cut on the page (the trace keeps it whole), on a character boundary.
func TestHugeJSONIsCut(t *testing.T) {
	raw, _ := json.Marshal(map[string]string{"text": strings.Repeat("é", maxShownJSON)})
	got := indent(raw)
	if len(got) > maxShownJSON+100 || !strings.Contains(got, "more bytes: the trace holds them all") || !utf8.ValidString(got) {
		t.Errorf("%d bytes shown, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
}
