// Package rawcmd is mcec's raw command language: what a command line means (chars:, keys,
// chords, shiftdown:/shiftup:, mouse:, pause:, mcec:…, macros, program starts and the agent tools
// by name) and the command table (built-ins plus the user's commands.toml), which resolves a line
// into the leaves that run. It runs nothing: the queue and executor are internal/rawcmd/queue,
// the TCP line server internal/transport/line. docs/raw-commands.md is the user's reference.
package rawcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of the language.
const (
	// MaxLine is the longest command line, in characters.
	MaxLine = 4096
	// MaxPause is the longest pause:MS.
	MaxPause = 60 * time.Second
	// maxChordKeys bounds key:a+b+… and shiftdown:/shiftup: lists.
	maxChordKeys = 8
	// maxDragPoints bounds mouse:drag.
	maxDragPoints = 1000
	// maxScroll bounds mouse:vs/hs.
	maxScroll = 100
)

// Kind says what a parsed line is.
type Kind int

// The kinds of command line.
const (
	// KindName is a table name (a key, a chord, a macro, a program, mcec:ver …, an agent tool),
	// with Args when a JSON object follows it.
	KindName Kind = iota
	KindChars
	KindKey
	KindShiftDown
	KindShiftUp
	KindMouse
	KindPause
)

// prefixes are the commands that take an argument after a colon; each is a table entry of that
// name so it can be disabled.
var prefixes = map[string]Kind{
	"chars:": KindChars, "key:": KindKey, "shiftdown:": KindShiftDown, "shiftup:": KindShiftUp,
	"mouse:": KindMouse, "pause:": KindPause,
}

// Command is one parsed line. Parse checks syntax only; the table decides what a name means.
type Command struct {
	Kind Kind
	// Name is the table name: the name itself for KindName, the prefix ("chars:") otherwise.
	Name string
	// Args is the JSON object after a name (agent tools), nil when none was given.
	Args json.RawMessage
	// Text is what chars: types.
	Text string
	// Keys are the key names of key:, shiftdown: and shiftup:, as written.
	Keys []string
	// Mouse is the mouse: action.
	Mouse Mouse
	// Pause is pause:'s duration.
	Pause time.Duration
}

// MouseOp is a mouse: action.
type MouseOp string

// The mouse actions.
const (
	MouseClick   MouseOp = "click"
	MouseDouble  MouseOp = "double"
	MouseDown    MouseOp = "down"
	MouseUp      MouseOp = "up"
	MouseMoveBy  MouseOp = "mm"
	MouseMoveTo  MouseOp = "mtp"
	MouseVScroll MouseOp = "vs"
	MouseHScroll MouseOp = "hs"
	MouseDrag    MouseOp = "drag"
)

// Button is a mouse button by its X number (the language names buttons; the queue presses them).
type Button int

// The buttons mouse: names.
const (
	ButtonLeft   Button = 1
	ButtonMiddle Button = 2
	ButtonRight  Button = 3
)

// Point is a screen position in pixels.
type Point struct{ X, Y int }

// Mouse is a parsed mouse: action.
type Mouse struct {
	Op     MouseOp
	Button Button  // click, double, down, up
	X, Y   int     // mm (dx, dy), mtp (x, y); vs/hs: N in X
	Path   []Point // drag
}

// buttonOps are the reference's button codes (lbc = left button click …) and plain words.
var buttonOps = map[string]struct {
	op MouseOp
	b  Button
}{
	"lbc": {MouseClick, ButtonLeft}, "rbc": {MouseClick, ButtonRight}, "mbc": {MouseClick, ButtonMiddle},
	"lbdc": {MouseDouble, ButtonLeft}, "rbdc": {MouseDouble, ButtonRight}, "mbdc": {MouseDouble, ButtonMiddle},
	"lbd": {MouseDown, ButtonLeft}, "rbd": {MouseDown, ButtonRight}, "mbd": {MouseDown, ButtonMiddle},
	"lbu": {MouseUp, ButtonLeft}, "rbu": {MouseUp, ButtonRight}, "mbu": {MouseUp, ButtonMiddle},
	"click": {MouseClick, ButtonLeft}, "left": {MouseClick, ButtonLeft},
	"right": {MouseClick, ButtonRight}, "middle": {MouseClick, ButtonMiddle},
	"double": {MouseDouble, ButtonLeft}, "down": {MouseDown, ButtonLeft}, "up": {MouseUp, ButtonLeft},
}

// SyntaxError is a line that does not parse.
type SyntaxError struct {
	Line   string
	Reason string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%q: %s", Clip(e.Line, 80), e.Reason) }

// Clip shortens a command line to n characters for logs and details; a chars: payload, which
// may be a password, is replaced by its length.
func Clip(s string, n int) string {
	// A chars: payload may be a password: logs and error details give only its length.
	if t := strings.TrimLeft(s, " \t"); len(t) >= len("chars:") && strings.EqualFold(t[:len("chars:")], "chars:") {
		return fmt.Sprintf("chars:(%d characters)", utf8.RuneCountInString(t[len("chars:"):]))
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// Parse parses one command line. Leading whitespace is ignored, and trailing whitespace too,
// except in chars: whose text is taken literally.
func Parse(line string) (Command, error) {
	bad := func(format string, args ...any) (Command, error) {
		return Command{}, &SyntaxError{Line: line, Reason: fmt.Sprintf(format, args...)}
	}
	if !utf8.ValidString(line) {
		return bad("not valid UTF-8")
	}
	if n := utf8.RuneCountInString(line); n > MaxLine {
		return bad("%d characters; a command line has at most %d", n, MaxLine)
	}
	s := strings.TrimLeftFunc(line, unicode.IsSpace)
	if s == "" {
		return bad("empty command")
	}
	if i := strings.IndexByte(s, ':'); i > 0 {
		prefix := strings.ToLower(s[:i+1])
		if kind, ok := prefixes[prefix]; ok {
			arg := s[i+1:]
			if kind != KindChars {
				arg = strings.TrimSpace(arg)
			}
			return parsePrefixed(line, prefix, kind, arg)
		}
	}
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	name, rest := s, ""
	if j := strings.IndexFunc(s, unicode.IsSpace); j >= 0 {
		name, rest = s[:j], s[j:]
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		return bad("control character in the command name")
	}
	cmd := Command{Kind: KindName, Name: name}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return cmd, nil
	}
	if rest[0] != '{' {
		return bad("unexpected %q after %s (only agent tools take arguments, as a JSON object)", Clip(rest, 20), name)
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(rest))
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return bad("arguments of %s are not a JSON object: %v", name, err)
	}
	if dec.More() {
		return bad("text after the JSON arguments of %s", name)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(rest)); err != nil {
		return bad("arguments of %s: %v", name, err)
	}
	cmd.Args = compact.Bytes()
	return cmd, nil
}

func parsePrefixed(line, prefix string, kind Kind, arg string) (Command, error) {
	bad := func(format string, args ...any) (Command, error) {
		return Command{}, &SyntaxError{Line: line, Reason: prefix + " " + fmt.Sprintf(format, args...)}
	}
	cmd := Command{Kind: kind, Name: prefix}
	switch kind {
	case KindChars:
		if arg == "" {
			return bad("needs the text to type")
		}
		for _, r := range arg {
			if r != '\n' && r != '\t' && r != '\r' && unicode.IsControl(r) {
				return bad("cannot type control character U+%04X", r)
			}
		}
		cmd.Text = arg
	case KindKey, KindShiftDown, KindShiftUp:
		seps := "+"
		if kind != KindKey {
			seps = "+,"
		}
		keys := strings.FieldsFunc(arg, func(r rune) bool { return strings.ContainsRune(seps, r) })
		if len(keys) == 0 || strings.HasSuffix(arg, "+") && kind == KindKey {
			return bad("needs key names, e.g. %sctrl+shift+t (use \"plus\" for the + key)", prefix)
		}
		if len(keys) > maxChordKeys {
			return bad("%d keys; at most %d", len(keys), maxChordKeys)
		}
		for i, k := range keys {
			keys[i] = strings.TrimSpace(k)
			if keys[i] == "" || strings.ContainsFunc(keys[i], unicode.IsSpace) {
				return bad("empty or spaced key name in %q", arg)
			}
			if kind != KindKey {
				if _, ok := Modifier(keys[i]); !ok {
					return bad("%q is not a modifier (shift, ctrl, alt, super)", keys[i])
				}
			}
		}
		cmd.Keys = keys
	case KindPause:
		ms, err := strconv.Atoi(arg)
		if err != nil || ms < 0 || time.Duration(ms)*time.Millisecond > MaxPause {
			return bad("needs milliseconds from 0 to %d", MaxPause.Milliseconds())
		}
		cmd.Pause = time.Duration(ms) * time.Millisecond
	case KindMouse:
		m, err := parseMouse(arg)
		if err != nil {
			return bad("%v", err)
		}
		cmd.Mouse = m
	}
	return cmd, nil
}

func parseMouse(arg string) (Mouse, error) {
	fields := strings.Split(arg, ",")
	op := strings.ToLower(strings.TrimSpace(fields[0]))
	nums := make([]int, 0, len(fields)-1)
	for _, f := range fields[1:] {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < -1<<20 || n > 1<<20 {
			return Mouse{}, fmt.Errorf("%q is not a number", f)
		}
		nums = append(nums, n)
	}
	if b, ok := buttonOps[op]; ok {
		if len(nums) != 0 {
			return Mouse{}, fmt.Errorf("%s takes no numbers", op)
		}
		return Mouse{Op: b.op, Button: b.b}, nil
	}
	switch MouseOp(op) {
	case MouseMoveBy, MouseMoveTo:
		if len(nums) != 2 {
			return Mouse{}, fmt.Errorf("%s needs two numbers, e.g. %s,10,20", op, op)
		}
		if op == string(MouseMoveTo) && (nums[0] < 0 || nums[1] < 0) {
			return Mouse{}, errors.New("mtp needs a point on the screen")
		}
		return Mouse{Op: MouseOp(op), X: nums[0], Y: nums[1]}, nil
	case MouseVScroll, MouseHScroll:
		if len(nums) != 1 || nums[0] == 0 || nums[0] < -maxScroll || nums[0] > maxScroll {
			return Mouse{}, fmt.Errorf("%s needs one non-zero number of clicks from -%d to %d", op, maxScroll, maxScroll)
		}
		return Mouse{Op: MouseOp(op), X: nums[0]}, nil
	case MouseDrag:
		if len(nums) < 4 || len(nums)%2 != 0 || len(nums)/2 > maxDragPoints {
			return Mouse{}, fmt.Errorf("drag needs x1,y1,x2,y2 and optionally more points (at most %d)", maxDragPoints)
		}
		m := Mouse{Op: MouseDrag}
		for i := 0; i < len(nums); i += 2 {
			if nums[i] < 0 || nums[i+1] < 0 {
				return Mouse{}, errors.New("drag points must be on the screen")
			}
			m.Path = append(m.Path, Point{X: nums[i], Y: nums[i+1]})
		}
		return m, nil
	}
	return Mouse{}, fmt.Errorf("unknown action %q (lbc, rbc, mbc, lbdc, lbd, lbu, …, mm, mtp, vs, hs, drag)", op)
}

// CommandName is the name a reply to line names its command by: the prefix of a prefixed command
// (chars:, key: …, lower-cased), else the first word.
func CommandName(line string) string {
	f := strings.Fields(line)
	if len(f) == 0 {
		return ""
	}
	if i := strings.IndexByte(f[0], ':'); i > 0 {
		if _, ok := prefixes[strings.ToLower(f[0][:i+1])]; ok {
			return strings.ToLower(f[0][:i+1])
		}
	}
	return f[0]
}
