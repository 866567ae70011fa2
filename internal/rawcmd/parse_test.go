package rawcmd

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		line string
		want Command
	}{
		{"chars:hello world ", Command{Kind: KindChars, Name: "chars:", Text: "hello world "}},
		{"  CHARS:é€ж😀", Command{Kind: KindChars, Name: "chars:", Text: "é€ж😀"}},
		{"chars::colon", Command{Kind: KindChars, Name: "chars:", Text: ":colon"}},
		{"key:ctrl+shift+t", Command{Kind: KindKey, Name: "key:", Keys: []string{"ctrl", "shift", "t"}}},
		{"shiftdown:ctrl,shift", Command{Kind: KindShiftDown, Name: "shiftdown:", Keys: []string{"ctrl", "shift"}}},
		{"shiftup:Ctrl+Alt", Command{Kind: KindShiftUp, Name: "shiftup:", Keys: []string{"Ctrl", "Alt"}}},
		{"pause:250", Command{Kind: KindPause, Name: "pause:", Pause: 250 * time.Millisecond}},
		{"mouse:lbc", Command{Kind: KindMouse, Name: "mouse:", Mouse: Mouse{Op: MouseClick, Button: ButtonLeft}}},
		{"mouse:rbdc", Command{Kind: KindMouse, Name: "mouse:", Mouse: Mouse{Op: MouseDouble, Button: ButtonRight}}},
		{"mouse:down", Command{Kind: KindMouse, Name: "mouse:", Mouse: Mouse{Op: MouseDown, Button: ButtonLeft}}},
		{"mouse:mm,-5,7", Command{Kind: KindMouse, Name: "mouse:", Mouse: Mouse{Op: MouseMoveBy, X: -5, Y: 7}}},
		{"mouse:mtp, 100, 200", Command{Kind: KindMouse, Name: "mouse:", Mouse: Mouse{Op: MouseMoveTo, X: 100, Y: 200}}},
		{"mouse:vs,-3", Command{Kind: KindMouse, Name: "mouse:", Mouse: Mouse{Op: MouseVScroll, X: -3}}},
		{"mouse:drag,1,2,3,4,5,6", Command{Kind: KindMouse, Name: "mouse:", Mouse: Mouse{Op: MouseDrag, Path: []Point{{X: 1, Y: 2}, {X: 3, Y: 4}, {X: 5, Y: 6}}}}},
		{"mcec:ver", Command{Kind: KindName, Name: "mcec:ver"}},
		{"VK_RETURN", Command{Kind: KindName, Name: "VK_RETURN"}},
		{"ctrl-a\t", Command{Kind: KindName, Name: "ctrl-a"}},
		{`query {"pid": 123}`, Command{Kind: KindName, Name: "query", Args: json.RawMessage(`{"pid":123}`)}},
		{"windows\t{}", Command{Kind: KindName, Name: "windows", Args: json.RawMessage(`{}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, err := Parse(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			if got.Kind != tt.want.Kind || got.Name != tt.want.Name || got.Text != tt.want.Text ||
				!slices.Equal(got.Keys, tt.want.Keys) || got.Pause != tt.want.Pause || string(got.Args) != string(tt.want.Args) ||
				got.Mouse.Op != tt.want.Mouse.Op || got.Mouse.Button != tt.want.Mouse.Button || got.Mouse.X != tt.want.Mouse.X ||
				got.Mouse.Y != tt.want.Mouse.Y || !slices.Equal(got.Mouse.Path, tt.want.Mouse.Path) {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.line, got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, line := range []string{
		"", "   ", "chars:", "chars:a\x01b", "key:", "key:ctrl+", "key:a+b+c+d+e+f+g+h+i", "shiftdown:a", "shiftup:",
		"pause:-1", "pause:x", "pause:60001", "mouse:", "mouse:fly", "mouse:lbc,1", "mouse:mm,1", "mouse:mtp,-1,0",
		"mouse:vs,0", "mouse:vs,101", "mouse:drag,1,2,3", "mouse:drag,1,2", "mouse:drag,-1,0,5,5", "query pid", `query {"pid":1} x`,
		"query [1]", "bad\x00name", "\xff", strings.Repeat("a", MaxLine+1),
	} {
		_, err := Parse(line)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a syntax error", Clip(line, 40), err)
		}
	}
	if _, err := Parse("chars:" + strings.Repeat("ж", MaxLine-6)); err != nil {
		t.Errorf("a line of exactly %d characters: %v", MaxLine, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"chars:hello", "key:ctrl+shift+t", "shiftdown:ctrl,alt", "mouse:drag,1,2,3,4",
		"mouse:mm,-1,1", "pause:10", `query {"pid":1}`, "VK_F5", "mcec:cmds", "chars:\n\t", "mouse:vs,3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmd, err := Parse(line)
		if err != nil {
			return
		}
		switch cmd.Kind {
		case KindChars:
			if cmd.Text == "" {
				t.Fatal("chars: without text")
			}
		case KindKey, KindShiftDown, KindShiftUp:
			if len(cmd.Keys) == 0 || len(cmd.Keys) > maxChordKeys {
				t.Fatalf("keys %q", cmd.Keys)
			}
		case KindName:
			if cmd.Name == "" || strings.ContainsAny(cmd.Name, " \t\n\r") {
				t.Fatalf("name %q", cmd.Name)
			}
			if cmd.Args != nil && !json.Valid(cmd.Args) {
				t.Fatalf("args %q", cmd.Args)
			}
		case KindMouse:
			if cmd.Mouse.Op == MouseDrag && len(cmd.Mouse.Path) < 2 {
				t.Fatal("drag of fewer than two points")
			}
		}
	})
}
