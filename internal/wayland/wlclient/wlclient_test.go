package wlclient_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/testdesk"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// The package's live tests run on a private Wayland desktop (headless sway), checked against
// what grim (screencopy) and wl-clipboard (data-control) read of the same compositor.
func TestMain(m *testing.M) { os.Exit(testdesk.MainWayland(m)) }

func dial(t *testing.T) (*wlclient.Client, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	cl, err := wlclient.Dial(ctx, testdesk.Desktop().WaylandSocket())
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl, ctx
}

func TestGlobalsAndOutputs(t *testing.T) {
	cl, ctx := dial(t)
	for _, iface := range []string{"wl_shm", "wl_seat", "wl_output", "zxdg_output_manager_v1", "zwlr_screencopy_manager_v1",
		"zwlr_virtual_pointer_manager_v1", "zwp_virtual_keyboard_manager_v1", "zwlr_data_control_manager_v1", "zwlr_foreign_toplevel_manager_v1"} {
		if !cl.Has(iface) {
			t.Errorf("sway does not offer %s (globals %v)", iface, cl.Globals())
		}
	}
	outs, err := cl.Outputs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Name != "HEADLESS-1" || outs[0].X != 0 || outs[0].Y != 0 || outs[0].Width != 1280 || outs[0].Height != 800 || outs[0].Scale != 1 {
		t.Errorf("outputs %+v, want HEADLESS-1 1280x800 at 0,0", outs)
	}
}

// grim grabs r through its own screencopy client.
func grim(t *testing.T, r image.Rectangle) *image.RGBA {
	t.Helper()
	path, err := exec.LookPath("grim")
	if err != nil {
		t.Skip("grim (Debian package grim) is not installed")
	}
	cmd := exec.Command(path, "-g", fmt.Sprintf("%d,%d %dx%d", r.Min.X, r.Min.Y, r.Dx(), r.Dy()), "-t", "png", "-")
	cmd.Env = testdesk.Desktop().Env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("grim: %v: %s", err, errb.String())
	}
	img, err := png.Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			rgba.Set(x, y, img.At(x, y))
		}
	}
	return rgba
}

// TestCaptureMatchesGrim: a region with a window in it, and the whole output, read the same as
// grim reads them (to one step of rounding).
func TestCaptureMatchesGrim(t *testing.T) {
	testdesk.GTKScene(t)
	cl, ctx := dial(t)
	for _, r := range []image.Rectangle{image.Rect(400, 250, 900, 560), image.Rect(0, 0, 1280, 800)} {
		// The text field's caret blinks: a blink between the two grabs is retried.
		var diff, colours int
		for range 3 {
			began := time.Now()
			got, err := cl.Capture(ctx, r)
			if err != nil {
				t.Fatalf("Capture(%v): %v", r, err)
			}
			t.Logf("capture %v in %v", r, time.Since(began).Round(100*time.Microsecond))
			want := grim(t, r)
			if got.Bounds().Size() != want.Bounds().Size() {
				t.Fatalf("Capture(%v) is %v, grim's %v", r, got.Bounds(), want.Bounds())
			}
			if diff, colours = compare(got, want); diff == 0 {
				break
			}
		}
		if diff > 0 || colours < 3 {
			t.Errorf("Capture(%v): %d pixels differ from grim's, %d colours (want a window's, not a blank)", r, diff, colours)
		}
	}
}

// compare counts the pixels of got that differ from want's, and got's colours.
func compare(got, want *image.RGBA) (diff, colours int) {
	seen := map[[3]uint8]bool{}
	for i := 0; i < len(got.Pix); i += 4 {
		seen[[3]uint8{got.Pix[i], got.Pix[i+1], got.Pix[i+2]}] = true
		for c := range 3 {
			// grim writes its PNG through pixman, which rounds some channels one step apart.
			if d := int(got.Pix[i+c]) - int(want.Pix[i+c]); d > 1 || d < -1 {
				diff++
				break
			}
		}
	}
	return diff, len(seen)
}

func TestClipboard(t *testing.T) {
	paste, err := exec.LookPath("wl-paste")
	if err != nil {
		t.Skip("wl-clipboard is not installed")
	}
	cl, ctx := dial(t)
	const text = "mcec ✓ clipboard"
	if err := cl.ClipboardSet(ctx, text); err != nil {
		t.Fatal(err)
	}
	if got, err := cl.ClipboardGet(ctx); err != nil || got != text {
		t.Errorf("ClipboardGet = %q, %v; want %q", got, err, text)
	}
	cmd := exec.CommandContext(ctx, paste, "-n")
	cmd.Env = testdesk.Desktop().Env()
	out, err := cmd.Output()
	if err != nil || string(out) != text {
		t.Errorf("wl-paste read %q (%v), want %q", out, err, text)
	}

	// Another client takes the selection: mcec reads the new one.
	copier := testdesk.Start(t, "wl-copy", "--foreground", "from wl-copy")
	testdesk.WaitFor(t, 10*time.Second, "the clipboard never read wl-copy's text", func() bool {
		got, err := cl.ClipboardGet(ctx)
		return err == nil && got == "from wl-copy"
	})
	testdesk.Kill(t, copier.PID)
}
