package tools

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform"
)

func ptr[T any](v T) *T { return &v }

// sampleTree is a small tree in the shape the AT-SPI backend returns.
func sampleTree() *platform.Node {
	btn := func(ref, name string) *platform.Node {
		return &platform.Node{Ref: ref, Role: "push button", ControlType: "Button", Name: name,
			Bounds: &platform.Rect{X: 10, Y: 20, Width: 30, Height: 40}}
	}
	return &platform.Node{Ref: "r0", Role: "frame", ControlType: "Window", Name: "Main", Children: []*platform.Node{
		{Ref: "r1", Role: "panel", ControlType: "Pane", Children: []*platform.Node{
			btn("r3", "OK"), btn("r4", "Cancel"),
			{Ref: "r5", Role: "text", ControlType: "Edit", Name: "entry", AutomationID: "user", Value: ptr("alice")},
		}},
		btn("r2", "OK"),
	}}
}

func TestSelectorCheck(t *testing.T) {
	tests := []struct {
		name string
		sel  *ElementSelector
		ok   bool
	}{
		{"nil", nil, false},
		{"empty", &ElementSelector{}, false},
		{"by without value", &ElementSelector{By: "name"}, false},
		{"value without by", &ElementSelector{Value: "OK"}, false},
		{"unknown by", &ElementSelector{By: "title", Value: "OK"}, false},
		{"negative index", &ElementSelector{Name: "OK", Index: ptr(-1)}, false},
		{"by name", &ElementSelector{By: "name", Value: "OK"}, true},
		{"rich", &ElementSelector{NameContains: "ok", Role: "Button"}, true},
		{"ref only", &ElementSelector{Ref: "1.2:3"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.sel.check()
			if (err == nil) != tt.ok {
				t.Fatalf("check() = %v, want ok=%v", err, tt.ok)
			}
			var ce *contract.Error
			if err != nil && (!errors.As(err, &ce) || ce.Code != contract.CodeBadArguments) {
				t.Fatalf("want bad-arguments, got %v", err)
			}
		})
	}
}

func TestSelectorSearchAndPick(t *testing.T) {
	tests := []struct {
		name     string
		sel      ElementSelector
		wantRef  string        // "" = no match
		wantCode contract.Code // ambiguity
	}{
		{"by name unique", ElementSelector{By: "name", Value: "Cancel"}, "r4", ""},
		{"by name is case-sensitive", ElementSelector{By: "name", Value: "cancel"}, "", ""},
		{"by role raw", ElementSelector{By: "role", Value: "text"}, "r5", ""},
		{"by role controlType", ElementSelector{By: "role", Value: "Edit"}, "r5", ""},
		{"by automationId", ElementSelector{By: "automationId", Value: "user"}, "r5", ""},
		{"by className matches nothing on AT-SPI", ElementSelector{By: "className", Value: "GtkButton"}, "", ""},
		{"ambiguous", ElementSelector{Name: "OK"}, "", contract.SelectorMatched(2)},
		{"index picks breadth-first", ElementSelector{Name: "OK", Index: ptr(0)}, "r2", ""},
		{"index 1", ElementSelector{Name: "OK", Index: ptr(1)}, "r3", ""},
		{"index past the end", ElementSelector{Name: "OK", Index: ptr(2)}, "", ""},
		{"nameContains", ElementSelector{NameContains: "canc"}, "r4", ""},
		{"role case-insensitive", ElementSelector{Role: "PUSH BUTTON", Name: "Cancel"}, "r4", ""},
		{"text", ElementSelector{Text: "alice"}, "r5", ""},
		{"all fields must match", ElementSelector{Name: "entry", Text: "bob"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.sel.pick(tt.sel.search(sampleTree()))
			if tt.wantCode != "" {
				var ce *contract.Error
				if !errors.As(err, &ce) || ce.Code != tt.wantCode {
					t.Fatalf("want %s, got %v", tt.wantCode, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil && tt.wantRef != "") || (got != nil && got.Ref != tt.wantRef) {
				t.Fatalf("got %+v, want ref %q", got, tt.wantRef)
			}
		})
	}
}

func TestSelectorCells(t *testing.T) {
	for _, tc := range []struct {
		sel  ElementSelector
		want []platform.Cell
	}{
		{ElementSelector{Name: "A1"}, []platform.Cell{{Row: 0, Col: 0}}},
		{ElementSelector{Name: "B2"}, []platform.Cell{{Row: 1, Col: 1}}},
		{ElementSelector{By: "name", Value: "AB300"}, []platform.Cell{{Row: 299, Col: 27}}},
		{ElementSelector{Name: "AMJ1048576"}, []platform.Cell{{Row: 1048575, Col: 1023}}},
		{ElementSelector{Name: "A0"}, nil},
		{ElementSelector{Name: "Submit"}, nil},
		{ElementSelector{Name: "a1"}, nil},
		{ElementSelector{NameContains: "A1"}, nil},
	} {
		if got := tc.sel.cells(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: cells %v, want %v", tc.sel.String(), got, tc.want)
		}
	}
}

// TestSelectorSameControlOnce: a GTK 4 button's label child repeating the button's name, and a
// raw role spelt exactly, do not make a selector ambiguous.
func TestSelectorSameControlOnce(t *testing.T) {
	label := &platform.Node{Ref: "a:3", Role: "label", ControlType: "Text", Name: "Send"}
	button := &platform.Node{Ref: "a:2", Role: "push button", ControlType: "Button", Name: "Send", Children: []*platform.Node{label}}
	field := &platform.Node{Ref: "a:5", Role: "text", ControlType: "Edit", Name: "Name"}
	caption := &platform.Node{Ref: "a:4", Role: "label", ControlType: "Text", Name: "Name"}
	root := &platform.Node{Ref: "a:1", Role: "frame", Name: "Form", Children: []*platform.Node{button, caption, field}}

	for _, tc := range []struct {
		sel  ElementSelector
		want []*platform.Node
	}{
		{ElementSelector{Name: "Send"}, []*platform.Node{button}},
		{ElementSelector{By: "name", Value: "Send"}, []*platform.Node{button}},
		{ElementSelector{Name: "Send", Role: "label"}, []*platform.Node{label}}, // asked for by role: kept
		{ElementSelector{Role: "text"}, []*platform.Node{field}},                // the raw role, not Text labels
		{ElementSelector{Role: "Text"}, []*platform.Node{caption, label}},       // the control type
		{ElementSelector{Name: "Name"}, []*platform.Node{caption, field}},       // a sibling label is another control
	} {
		if got := tc.sel.search(root); !slices.Equal(got, tc.want) {
			var refs []string
			for _, n := range got {
				refs = append(refs, n.Ref)
			}
			t.Errorf("%s: matched %v", tc.sel.String(), refs)
		}
	}
}

// An ambiguity lists each candidate's name beside its ref and role, so the agent can tell a
// label from the field it labels without another call.
func TestAmbiguityListsCandidateNames(t *testing.T) {
	sel := ElementSelector{NameContains: "ok"}
	_, err := sel.pick(sel.search(sampleTree()))
	var ce *contract.Error
	if !errors.As(err, &ce) {
		t.Fatalf("want an ambiguity, got %v", err)
	}
	if got := strings.Count(ce.Detail, `name="OK"`); got != 2 {
		t.Errorf("detail names %d candidates, want 2: %s", got, ce.Detail)
	}
}
