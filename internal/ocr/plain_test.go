package ocr

import (
	"context"
	"image"
	"image/draw"
	"image/png"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/sysload"
)

func loadTestPNG(t *testing.T, name string) *image.RGBA {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, src.Bounds().Dx(), src.Bounds().Dy()))
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	return img
}

// TestPlainButtonLabels is issue 27's missed "Close": the button rows of two About-style Tk
// dialogs, grabbed from Xvfb. tk_about_buttons.png: "Credits", and "Close" with the focus, so
// inside Tk's 1 px black focus ring. tk_dark_buttons.png: both in a dark theme (#dddddd on
// #555555, light bevel). Tesseract on its own (tesseract file.png -) reads both labels of each;
// the 2x sparse-text read alone drops the framed "Close" and both dark labels.
func TestPlainButtonLabels(t *testing.T) {
	needTesseract(t)
	for _, tt := range []struct {
		file string
		want []string
	}{
		{"tk_about_buttons.png", []string{"Credits", "Close"}},
		{"tk_dark_buttons.png", []string{"Credits", "Close"}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), sysload.Scale(30*time.Second)) // tesseract shares the processors with the rest of make test
			defer cancel()
			img := loadTestPNG(t, tt.file)
			res, err := Recognize(ctx, img, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var boxes []image.Rectangle
			for _, label := range tt.want {
				m := res.Find(label)
				if len(m) != 1 {
					t.Errorf("%q found %d times in %q", label, len(m), res.Text)
					continue
				}
				if b := m[0].Box; !b.In(img.Bounds()) || b.Dy() < 8 || b.Dy() > 30 || b.Dx() < 20 || b.Dx() > 70 {
					t.Errorf("%q at %v", label, b)
				}
				boxes = append(boxes, m[0].Box)
			}
			// Credits is left of Close, on one row: reading order holds.
			if len(boxes) == 2 && (boxes[0].Max.X > boxes[1].Min.X || boxes[0].Max.Y < boxes[1].Min.Y || boxes[1].Max.Y < boxes[0].Min.Y) {
				t.Errorf("Credits at %v, Close at %v", boxes[0], boxes[1])
			}
			for i, w := range res.Words {
				if w.Line < 0 || w.Line >= len(res.Lines) || (i > 0 && w.Line < res.Words[i-1].Line) {
					t.Errorf("word %d %+v: line out of order", i, w)
				}
			}
		})
	}
}

// TestAddPlain: the plain pass adds its sure, tall enough words where the main read has none or
// only unsure ones (which go), in its own lines placed by height, and nothing else.
func TestAddPlain(t *testing.T) {
	row := func(text string, x, y, w, h, conf int, line string) tsvRow {
		return tsvRow{text: text, box: image.Rect(x, y, x+w, y+h), conf: conf, line: line}
	}
	// The main read, at 2x: a title at the top, a row of text in the middle, a footer with a
	// misread button.
	rows := []tsvRow{
		row("About", 40, 20, 100, 30, 96, "0/1/1/1/1"),
		row("Version", 60, 100, 120, 24, 95, "0/1/2/1/1"),
		row("3.1", 200, 100, 40, 24, 95, "0/1/2/1/1"),
		row("footer", 40, 300, 100, 24, 90, "0/1/3/1/1"),
		row("Gose", 400, 296, 60, 34, 42, "0/1/3/1/1"),
	}
	// The plain pass, at 1x.
	plain := []tsvRow{
		row("Version", 30, 50, 60, 12, 97, "1/2/1/1"), // read by both: not added
		row("Credits", 12, 70, 25, 11, 97, "1/3/1/1"), // missed, sure, 11 px: added
		row("Close", 130, 70, 19, 11, 96, "1/3/1/1"),  // the same line: added with it
		row("Chose", 12, 90, 25, 9, 74, "1/4/1/1"),    // not sure enough
		row("mo", 90, 95, 1, 3, 97, "1/4/1/1"),        // a speck
		row("Q", 200, 10, 16, 16, 92, "1/5/1/1"),      // one letter: an icon
		row("|", 100, 70, 2, 11, 90, "1/3/1/1"),       // no letter
		row("Top", 160, 2, 20, 10, 95, "1/6/1/1"),     // above everything: first
		row("OK", 201, 150, 14, 11, 91, "1/7/1/1"),    // over an unsure word: replaces it, a line above the footer
	}
	got := addPlain(rows, plain, 2)
	var texts []string
	for _, r := range got {
		texts = append(texts, r.text)
	}
	want := []string{"Top", "About", "Version", "3.1", "Credits", "Close", "OK", "footer"}
	if !slices.Equal(texts, want) {
		t.Fatalf("rows %q, want %q", texts, want)
	}
	if c := got[4]; c.box != image.Rect(24, 140, 74, 162) || c.line != got[5].line || c.line == rows[1].line {
		t.Errorf("Credits %+v, Close %+v", c, got[5])
	}
	res := assemble(got, 2)
	if res.Text != "Top\nAbout\nVersion 3.1\nCredits Close\nOK\nfooter" {
		t.Errorf("text %q", res.Text)
	}
	if m := res.Find("close"); len(m) != 1 || m[0].Box != image.Rect(130, 70, 149, 81) {
		t.Errorf("Find(close) = %+v", m)
	}
	if out := addPlain(rows, nil, 2); !slices.Equal(out, rows) {
		t.Errorf("nothing to add changed the rows: %+v", out)
	}
}
