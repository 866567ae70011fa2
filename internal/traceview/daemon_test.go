package traceview_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/daemon/daemontest"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/traceview"
)

// With keep_frames, a daemon keeps a frame before and after each acting call (none for what only
// observes), the trace vouches for each by its SHA-256, and the viewer shows both with the click
// drawn where it landed.
func TestKeptFramesOverTheDaemon(t *testing.T) {
	d := daemontest.Start(t, daemon.Config{Safety: safety.Settings{AllowAll: true, KeepFrames: true}})
	d.OK(t, "windows", map[string]any{}, nil)
	d.OK(t, "click", map[string]any{"at": map[string]int{"x": 40, "y": 30}, "settle": 0}, nil)
	d.Evidence.Flush()

	traces, _ := filepath.Glob(filepath.Join(d.Dir, "sessions", "*", evidence.TraceFile))
	if len(traces) != 1 {
		t.Fatalf("traces: %v", traces)
	}
	dir := filepath.Dir(traces[0])
	b, err := evidence.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := b.Verify()
	if err != nil {
		t.Fatal(err)
	}
	var kept []evidence.FrameRef
	for _, l := range v.Lines {
		switch {
		case l.Kind == evidence.KindResponse && l.Tool == "windows" && len(l.Frames) > 0:
			t.Errorf("windows only observes, yet kept frames %+v", l.Frames)
		case l.Kind == evidence.KindResponse && l.Tool == "click":
			kept = l.Frames
		}
	}
	if len(kept) != 2 || kept[0].When != "before" || kept[1].When != "after" {
		t.Fatalf("the click's frames: %+v, want before and after", kept)
	}
	for _, f := range kept {
		data, err := os.ReadFile(filepath.Join(dir, f.File))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != f.SHA256 || f.Scale <= 0 || f.Scale > 1 {
			t.Errorf("frame %+v: digest or scale wrong", f)
		}
	}

	p := traceview.Build(b)
	var click *traceview.Call
	for i := range p.Calls {
		if p.Calls[i].Tool == "click" {
			click = &p.Calls[i]
		}
	}
	if click == nil || len(click.Images) != 2 || click.Images[0].Changed || click.Images[1].Changed {
		t.Fatalf("the viewer's click: %+v", click)
	}
	var html bytes.Buffer
	if err := p.Write(&html); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(html.String(), `<circle class="point"`); n != 2 {
		t.Errorf("the click is drawn on %d frames, want 2", n)
	}
}
