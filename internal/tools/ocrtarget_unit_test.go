package tools

import (
	"errors"
	"image"
	"strings"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/ocr"
	"github.com/mcec/mcec/internal/platform"
)

func TestScreenTextCheck(t *testing.T) {
	tests := []struct {
		name string
		sel  ElementSelector
		ok   bool
	}{
		{"alone", ElementSelector{ScreenText: "Save"}, true},
		{"with index", ElementSelector{ScreenText: "Save", Index: ptr(1)}, true},
		{"with name", ElementSelector{ScreenText: "Save", Name: "Save"}, false},
		{"with role", ElementSelector{ScreenText: "Save", Role: "push button"}, false},
		{"with ref", ElementSelector{ScreenText: "Save", Ref: "ocr:1,2,3,4:Save"}, false},
		{"with by", ElementSelector{ScreenText: "Save", By: "name", Value: "Save"}, false},
		{"an ocr ref", ElementSelector{Ref: "ocr:1,2,3,4:Save"}, true},
		{"punctuation only", ElementSelector{ScreenText: " -- : "}, false},
	}
	for _, tt := range tests {
		err := tt.sel.check()
		if (err == nil) != tt.ok {
			t.Errorf("%s: check() = %v, want ok=%v", tt.name, err, tt.ok)
		}
		var ce *contract.Error
		if err != nil && (!errors.As(err, &ce) || ce.Code != contract.CodeBadArguments) {
			t.Errorf("%s: want bad-arguments, got %v", tt.name, err)
		}
	}
	if s := (&ElementSelector{ScreenText: "run done", Index: ptr(1)}).String(); s != `element{screenText="run done" index=1}` {
		t.Errorf("String() = %s", s)
	}
}

func TestOCRRef(t *testing.T) {
	r := platform.Rect{X: -5, Y: 40, Width: 64, Height: 18}
	ref := ocrRef(r, "Save as: file")
	if ref != "ocr:-5,40,64,18:Save as: file" || !isOCRRef(ref) {
		t.Fatalf("ocrRef = %q", ref)
	}
	got, text, ok := parseOCRRef(ref)
	if !ok || got != r || text != "Save as: file" {
		t.Errorf("parseOCRRef(%q) = %v %q %v", ref, got, text, ok)
	}
	for _, bad := range []string{"ocr:", "ocr:1,2,3:x", "ocr:1,2,3,4", "ocr:1,2,3,4: ", "ocr:1,2,0,4:x", "ocr:a,2,3,4:x", "1.2:3"} {
		if _, _, ok := parseOCRRef(bad); ok {
			t.Errorf("parseOCRRef(%q) accepted", bad)
		}
	}
}

// TestScreenMap: image pixels become absolute screen pixels for a screen region, a window, a
// window crop, and a window whose pixels come at twice its bounds (boxes widen, never shrink).
func TestScreenMap(t *testing.T) {
	box := image.Rect(10, 20, 31, 29)
	win := &WindowInfo{X: 100, Y: 200, Width: 400, Height: 300}
	tests := []struct {
		name string
		src  pixelSource
		want platform.Rect
	}{
		{"screen region", pixelSource{rect: platform.Rect{X: 50, Y: 60, Width: 200, Height: 100}}, platform.Rect{X: 60, Y: 80, Width: 21, Height: 9}},
		{"window", pixelSource{handle: 7, window: win, frame: image.NewRGBA(image.Rect(0, 0, 400, 300))}, platform.Rect{X: 110, Y: 220, Width: 21, Height: 9}},
		{"window crop", pixelSource{handle: 7, window: win, crop: true, rect: platform.Rect{X: 5, Y: 6, Width: 50, Height: 50},
			frame: image.NewRGBA(image.Rect(0, 0, 400, 300))}, platform.Rect{X: 115, Y: 226, Width: 21, Height: 9}},
		{"window at 2x", pixelSource{handle: 7, window: win, frame: image.NewRGBA(image.Rect(0, 0, 800, 600))}, platform.Rect{X: 105, Y: 210, Width: 11, Height: 5}},
	}
	for _, tt := range tests {
		if got := tt.src.screenMap().rect(box); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestOCRNodeAndRefusal(t *testing.T) {
	n := ocrNode(ocr.Match{Text: "Save", Confidence: 91}, platform.Rect{X: 1, Y: 2, Width: 30, Height: 12})
	e := element(n)
	if !strings.HasPrefix(e.Ref, "ocr:") || e.Role != ocrRole || e.IsOffscreen || e.X == nil || *e.Width != 30 || !strings.Contains(e.Description, "confidence 91") {
		t.Errorf("element %+v", e)
	}
	err := ocrRefusal(n, platform.ActInvoke)
	var ce *contract.Error
	if !errors.As(err, &ce) || ce.Code != contract.CodePatternUnsupported || !strings.Contains(ce.Detail, "click") {
		t.Errorf("ocrRefusal = %v", err)
	}
	if err := ocrRefusal(&platform.Node{Ref: "1.2:3"}, platform.ActInvoke); err != nil {
		t.Errorf("a tree element refused: %v", err)
	}
}
