package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/inputgate"
	"github.com/mcec/mcec/internal/rawcmd"
	"github.com/mcec/mcec/internal/testdesk"
)

func known(name string) bool {
	return slices.Contains([]string{"Return", "F5", "Page_Down", "a", "x", "t", "plus"}, name)
}

func newEngine(t *testing.T, f *fakeDesktop, opts Options) *Engine {
	t.Helper()
	opts.Desktop = f
	opts.Gate = inputgate.New(f.Input(), nil)
	opts.KnownKey = known
	opts.Version = "test"
	e := New(opts)
	e.Start(nil)
	t.Cleanup(func() { e.Close() })
	return e
}

func wantCode(t *testing.T, err error, code contract.Code) {
	t.Helper()
	var ce *contract.Error
	if !errors.As(err, &ce) || ce.Code != code {
		t.Fatalf("error %v, want %s", err, code)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunsBuiltins(t *testing.T) {
	f := newFake()
	e := newEngine(t, f, Options{})
	ctx := context.Background()
	for _, line := range []string{"chars:hé", "ctrl-a", "close", "enter", "VK_F5", "vk_oem_plus", "Page_Down",
		"key:ctrl+shift+t", "mouse:lbc", "mouse:rbdc", "mouse:mm,5,-20", "mouse:mtp,3,4", "mouse:vs,2", "mouse:hs,-1",
		"mouse:drag,1,2,3,4", "pause:1"} {
		if _, err := e.Run(ctx, line, OriginAgent); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	want := []string{"type hé", "chord Control_L+a", "chord Alt_L+F4", "chord Return", "chord F5", "chord plus",
		"chord Page_Down", "chord Control_L+Shift_L+t", "click 10,10 b1 x1", "click 10,10 b3 x2", "move 15,0",
		"move 3,4", "scroll 0,-2", "scroll -1,0", "drag [{1 2} {3 4}]"}
	if got := f.log(); !slices.Equal(got, want) {
		t.Errorf("input calls\n got %q\nwant %q", got, want)
	}
	res, err := e.Run(ctx, "mcec:ver", OriginAgent)
	if err != nil || res.Output != "mcec test" {
		t.Errorf("mcec:ver = %+v, %v", res, err)
	}
	res, err = e.Run(ctx, "mcec:cmds", OriginAgent)
	if err != nil || !strings.Contains(res.Output, "chars:\n") || !strings.Contains(res.Output, "VK_RETURN") {
		t.Errorf("mcec:cmds = %q, %v", rawcmd.Clip(res.Output, 100), err)
	}
	if res, err := e.Run(ctx, "mcec:time", OriginAgent); err != nil || len(res.Output) < 20 {
		t.Errorf("mcec:time = %+v, %v", res, err)
	}
}

func TestRefusals(t *testing.T) {
	f := newFake()
	dir := t.TempDir()
	file := filepath.Join(dir, "commands.toml")
	writeFile(t, file, `
[commands."ctrl-z"]
enabled = false
[commands.bad]
macro = ["chars:a", "nosuchcommand"]
[commands.off]
macro = ["ctrl-z"]
`)
	e := newEngine(t, f, Options{File: file})
	tests := []struct {
		line string
		code contract.Code
	}{
		{"nosuchcommand", contract.CodeUnknownCommand},
		{"bad", contract.CodeUnknownCommand},
		{"ctrl-z", contract.CodeCommandDisabled},
		{"off", contract.CodeCommandDisabled},
		{"mcec:exit", contract.CodeCommandDisabled},
		{"mouse:fly", contract.CodeBadArguments},
		{"key:ctrl+nosuchkey", contract.CodeBadArguments},
		{`enter {"x":1}`, contract.CodeBadArguments},
	}
	for _, tt := range tests {
		_, err := e.Submit(tt.line, OriginAgent)
		wantCode(t, err, tt.code)
	}
	if got := f.log(); len(got) > 0 {
		t.Errorf("refused commands ran: %q", got)
	}
	if _, err := e.Submit("mcec:exit", OriginLine); err != nil {
		t.Errorf("mcec:exit on the line protocol: %v", err)
	}
}

func TestTreeBound(t *testing.T) {
	f := newFake()
	file := filepath.Join(t.TempDir(), "commands.toml")
	steps := func(n int) string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("%q", fmt.Sprintf("chars:%d,", i)))
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	writeFile(t, file, fmt.Sprintf(`
[commands.fifty]
macro = %s
[commands.half]
macro = %s
[commands.nested]
macro = ["half", "half"]
[commands.loop]
macro = ["chars:x", "loop"]
`, steps(50), steps(24)))
	e := newEngine(t, f, Options{File: file})
	ctx := context.Background()
	e.Run(ctx, "shiftdown:ctrl", OriginAgent)
	if _, err := e.Run(ctx, "fifty", OriginAgent); err != nil {
		t.Fatalf("a 50-command macro: %v", err)
	}
	if n := len(f.log()); n != 51 {
		t.Fatalf("%d input calls after shiftdown and 50 chars", n)
	}
	// nested = half + 24 + half + 24 = 50 commands: fits. Adding one more level of steps does not.
	if _, err := e.Run(ctx, "nested", OriginAgent); err != nil {
		t.Fatalf("nested: %v", err)
	}
	before := len(f.log())
	_, err := e.Submit("loop", OriginAgent)
	wantCode(t, err, contract.CodeBadArguments)

	// 51 commands: the file refuses such a macro, so build the tree by nesting.
	writeFile(t, file, fmt.Sprintf("[commands.half]\nmacro = %s\n[commands.big]\nmacro = [\"half\", \"half\", \"chars:x\"]\n", steps(24)))
	w := &watcher{e: e, seen: true}
	w.check()
	if e.TableError() != nil {
		t.Fatal(e.TableError())
	}
	_, err = e.Submit("big", OriginAgent)
	wantCode(t, err, contract.CodeCommandDropped)
	// The drop released the held Control, and nothing of big ran.
	testdesk.WaitFor(t, 5*time.Second, "ctrl still held after a drop", func() bool { return len(f.heldNow()) == 0 })
	for _, c := range f.log()[before:] {
		if strings.HasPrefix(c, "type") {
			t.Errorf("part of a dropped macro ran: %s", c)
		}
	}
	if s := e.Stats(); s.Dropped != 1 {
		t.Errorf("stats %+v", s)
	}
}

func TestQueueBoundAndOrder(t *testing.T) {
	f := newFake()
	f.block = make(chan struct{})
	e := newEngine(t, f, Options{})
	var (
		tickets  []*Ticket
		accepted []int // which submissions were queued: the dispatcher may free a slot mid-loop
	)
	dropped := 0
	for i := range 300 {
		tk, err := e.Submit(fmt.Sprintf("chars:%d;", i), OriginAgent)
		if err != nil {
			wantCode(t, err, contract.CodeCommandDropped)
			dropped++
			continue
		}
		if tk.Pending > MaxPending {
			t.Fatalf("queue of %d", tk.Pending)
		}
		tickets = append(tickets, tk)
		accepted = append(accepted, i)
	}
	close(f.block)
	for _, tk := range tickets {
		<-tk.Done()
		if _, err := tk.Result(); err != nil {
			t.Fatal(err)
		}
	}
	// 200 waited, perhaps one more was already taken by the dispatcher (blocked in Type); the
	// rest were dropped.
	if n := len(tickets); n < MaxPending || n > MaxPending+1 || n+dropped != 300 {
		t.Errorf("%d accepted, %d dropped", len(tickets), dropped)
	}
	if s := e.Stats(); s.HighWater > MaxPending {
		t.Errorf("high water %d", s.HighWater)
	}
	var want []string
	for _, i := range accepted {
		want = append(want, fmt.Sprintf("type %d;", i))
	}
	if got := f.log(); !slices.Equal(got, want) {
		t.Errorf("ran out of order or not at all: %q…", got[:min(5, len(got))])
	}
}

func TestRunTimeout(t *testing.T) {
	f := newFake()
	e := newEngine(t, f, Options{Wait: 50 * time.Millisecond})
	_, err := e.Run(context.Background(), "pause:400", OriginAgent)
	wantCode(t, err, contract.CodeSendCommandTimeout)
	if !strings.Contains(err.Error(), "still queued or running") {
		t.Errorf("detail: %v", err)
	}
	// The command keeps running: the next one runs after it.
	tk, err := e.Submit("mcec:ver", OriginAgent)
	if err != nil {
		t.Fatal(err)
	}
	<-tk.Done()
	if res, err := tk.Result(); err != nil || res.Seq != 2 || res.Output != "mcec test" {
		t.Errorf("after a timeout: %+v %v", res, err)
	}
}

func TestCloseReleasesHeld(t *testing.T) {
	f := newFake()
	e := New(Options{Desktop: f, Gate: inputgate.New(f.Input(), nil), KnownKey: known})
	e.Start(nil)
	ctx := context.Background()
	for _, l := range []string{"shiftdown:ctrl,shift", "mouse:down", "shiftup:shift"} {
		if _, err := e.Run(ctx, l, OriginAgent); err != nil {
			t.Fatal(err)
		}
	}
	if h := f.heldNow(); len(h) != 2 {
		t.Fatalf("held %v", h)
	}
	tk, _ := e.Submit("pause:60000", OriginAgent)
	e.Close()
	<-tk.Done()
	if _, err := tk.Result(); err == nil {
		t.Error("a pause outlived Close")
	}
	if h := f.heldNow(); len(h) != 0 {
		t.Errorf("still held after Close: %v", h)
	}
	_, err := e.Submit("chars:a", OriginAgent)
	wantCode(t, err, contract.CodeCommandDropped)
}

func TestCommandsFile(t *testing.T) {
	f := newFake()
	file := filepath.Join(t.TempDir(), "commands.toml")
	writeFile(t, file, `pacing_ms = 0
[commands.greet]
macro = ["chars:Hello", "enter"]
[commands.enter]
macro = ["chars:[enter]"]
[commands."chars:"]
enabled = true
[commands.VK_F5]
enabled = false
`)
	e := newEngine(t, f, Options{File: file, Poll: 10 * time.Millisecond})
	if _, err := e.Run(context.Background(), "greet", OriginAgent); err != nil {
		t.Fatal(err)
	}
	if got := f.log(); !slices.Equal(got, []string{"type Hello", "type [enter]"}) {
		t.Errorf("greet with enter overridden: %q", got)
	}
	wantCode(t, e.Check("VK_F5"), contract.CodeCommandDisabled)

	// A broken file: reported with its line; the table in force stays.
	writeFile(t, file, "[commands.greet]\nmacro = [\"chars:Hello\"\n\n")
	testdesk.WaitFor(t, 5*time.Second, "the broken file was not noticed", func() bool { return e.TableError() != nil })
	var fe *rawcmd.FileError
	if err := e.TableError(); !errors.As(err, &fe) || fe.Line == 0 {
		t.Errorf("error %v has no line", err)
	}
	if err := e.Check("greet"); err != nil {
		t.Errorf("the previous table is gone: %v", err)
	}
	// Fixed: reloaded.
	writeFile(t, file, "[commands.wave]\nprogram = [\"true\"]\n")
	testdesk.WaitFor(t, 5*time.Second, "the fixed file was not reloaded", func() bool { return e.Check("wave") == nil })
	if e.TableError() != nil || e.Check("greet") == nil {
		t.Errorf("after reload: err %v, greet %v", e.TableError(), e.Check("greet"))
	}
}

// Allow is asked once per distinct command of a line, with the submitting call's context: a
// grant for one use covers the whole line that uses it.
func TestAllowOncePerCommandOfALine(t *testing.T) {
	f := newFake()
	file := filepath.Join(t.TempDir(), "commands.toml")
	writeFile(t, file, "[commands.twice]\nmacro = [\"enter\", \"ctrl-a\", \"enter\", \"ctrl-a\"]\n")
	type key struct{}
	var asked []string
	var ctxs []any
	e := newEngine(t, f, Options{File: file, Allow: func(ctx context.Context, en *rawcmd.Entry) error {
		asked = append(asked, en.Name)
		ctxs = append(ctxs, ctx.Value(key{}))
		return nil
	}})
	ctx := context.WithValue(context.Background(), key{}, "the call")
	if _, err := e.Run(ctx, "twice", OriginAgent); err != nil {
		t.Fatal(err)
	}
	slices.Sort(asked)
	if !slices.Equal(asked, []string{"ctrl-a", "enter"}) {
		t.Errorf("Allow asked about %v, want ctrl-a and enter once each", asked)
	}
	for _, v := range ctxs {
		if v != "the call" {
			t.Errorf("Allow got another context (%v)", v)
		}
	}
}
