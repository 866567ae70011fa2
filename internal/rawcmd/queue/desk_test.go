package queue_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/rawcmd"
	"github.com/mcec/mcec/internal/rawcmd/queue"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/testdesk"
	"github.com/mcec/mcec/internal/transport/line"
)

// rig is a daemon on the test desktop with the small entry/slider app running in it.
type rig struct {
	t    *testing.T
	d    *daemon.Daemon
	pid  int
	file string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	return newRigWaiting(t, 0)
}

// newRigWaiting is newRig whose send_command waits up to wait for a command (0: the default).
func newRigWaiting(t *testing.T, wait time.Duration) *rig {
	t.Helper()
	file := filepath.Join(t.TempDir(), "commands.toml")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := daemon.Start(ctx, daemon.Config{SessionsDir: t.TempDir(), Safety: safety.Settings{AllowAll: true},
		Commands: daemon.CommandsConfig{File: file, Poll: 20 * time.Millisecond, Wait: wait}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	p := testdesk.Start(t, "/usr/bin/python3", "testdata/entry.py")
	testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	return &rig{t: t, d: d, pid: p.PID, file: file}
}

// call runs a tool through the dispatcher and checks the envelope against the schema.
func (r *rig) call(tool string, args any) contract.Envelope {
	r.t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := r.d.Dispatcher.Call(ctx, tool, raw)
	if err != nil {
		r.t.Fatal(err)
	}
	return contracttest.Check(r.t, contracttest.CheckEnvelope(r.t, out.Envelope))
}

type sendResult struct {
	Command string          `json:"command"`
	Seq     uint64          `json:"seq"`
	Output  string          `json:"output"`
	Result  json.RawMessage `json:"result"`
}

// send runs one raw command with send_command; it must succeed.
func (r *rig) send(line string) sendResult {
	r.t.Helper()
	env := r.call("send_command", map[string]any{"command": line})
	if !env.OK() {
		r.t.Fatalf("send_command %q: %+v", line, env.Err())
	}
	var res sendResult
	if err := env.DecodeResult(&res); err != nil {
		r.t.Fatal(err)
	}
	return res
}

type element struct {
	Ref    string  `json:"ref"`
	Value  *string `json:"value"`
	X      *int    `json:"x"`
	Y      *int    `json:"y"`
	Width  *int    `json:"width"`
	Height *int    `json:"height"`
}

// find reads one element of the app through the accessibility tree (via send_command too).
func (r *rig) find(role string) element {
	r.t.Helper()
	res := r.send(fmt.Sprintf(`find {"pid":%d,"element":{"role":%q}}`, r.pid, role))
	var f struct {
		Found   bool    `json:"found"`
		Element element `json:"element"`
	}
	if err := json.Unmarshal(res.Result, &f); err != nil || !f.Found {
		r.t.Fatalf("no %s in the app: %s %v", role, res.Result, err)
	}
	return f.Element
}

func (r *rig) entryText() string {
	v := r.find("text").Value
	if v == nil {
		return ""
	}
	return *v
}

// waitText waits until the entry reads want.
func (r *rig) waitText(want string) {
	r.t.Helper()
	var got string
	defer func() {
		if got != want { // WaitFor failed: say what the entry read last
			r.t.Logf("the entry reads %q", clip(got))
		}
	}()
	testdesk.WaitFor(r.t, 10*time.Second, fmt.Sprintf("the entry never read %q", clip(want)), func() bool {
		got = r.entryText()
		return got == want
	})
}

// clip shortens a long text to its start and end, with its length: two long texts that differ
// near the end must not read the same.
func clip(s string) string {
	if len(s) > 80 {
		return fmt.Sprintf("%s…%s (%d bytes)", s[:40], s[len(s)-30:], len(s))
	}
	return s
}

func (r *rig) focusEntry() {
	r.t.Helper()
	r.send(fmt.Sprintf(`click {"pid":%d,"at":{"role":"text"}}`, r.pid))
}

func (r *rig) assertNothingHeld() {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	held, err := r.d.Desktop.Input().Held(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	if len(held) > 0 {
		r.t.Fatalf("held: %v", held)
	}
}

func TestTypingAndKeys(t *testing.T) {
	r := newRig(t)
	defer r.assertNothingHeld()
	r.focusEntry()
	r.send("ctrl-a")
	r.send("chars:Hello, mcec! 123")
	r.waitText("Hello, mcec! 123")

	r.send("ctrl-a")
	r.send("chars:x")
	r.waitText("x")

	r.send("key:ctrl+a")
	r.send("chars:é€ж😀")
	r.waitText("é€ж😀")

	r.send("VK_END")
	r.send("BackSpace")
	r.send("chars:!")
	r.waitText("é€ж!")
}

func TestShiftDownUp(t *testing.T) {
	r := newRig(t)
	r.focusEntry()
	r.send("shiftdown:ctrl")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	held, err := r.d.Desktop.Input().Held(ctx)
	if err != nil || !slices.Contains(held, "Control_L") {
		t.Fatalf("after shiftdown:ctrl held %v (%v)", held, err)
	}
	r.send("shiftup:ctrl")
	r.assertNothingHeld()

	// A dropped command releases what earlier commands left down.
	r.send("shiftdown:shift")
	writeMacro(t, r, "toolong", 51)
	env := r.call("send_command", map[string]any{"command": "toolong"})
	contracttest.Fail(t, env, contract.Internal, contract.CodeCommandDropped)
	testdesk.WaitFor(t, 5*time.Second, "shift still held after a drop", func() bool {
		h, err := r.d.Desktop.Input().Held(ctx)
		return err == nil && len(h) == 0
	})
}

// writeMacro defines a macro of n chars: steps and waits until the table has it.
func writeMacro(t *testing.T, r *rig, name string, n int) {
	t.Helper()
	var steps []string
	for i := range n {
		steps = append(steps, strconv.Quote(fmt.Sprintf("chars:%d,", i)))
	}
	text := fmt.Sprintf("[commands.%s]\nmacro = [%s]\n", name, strings.Join(steps, ", "))
	if err := os.WriteFile(r.file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 5*time.Second, "the commands file was not loaded", func() bool {
		e, ok := r.d.Commands.Table().Lookup(name)
		return ok && len(e.Macro) == n
	})
}

func TestMacroAllOrNothing(t *testing.T) {
	r := newRig(t)
	r.focusEntry()
	r.send("ctrl-a")
	r.send("chars:start")
	r.waitText("start")
	writeMacro(t, r, "big", 51)
	env := r.call("send_command", map[string]any{"command": "big"})
	contracttest.Fail(t, env, contract.Internal, contract.CodeCommandDropped)
	r.send("chars:.") // after it in the queue: when this is typed, anything of big would be too
	r.waitText("start.")

	writeMacro(t, r, "fits", 50)
	r.send("ctrl-a")
	res := r.send("fits")
	var want strings.Builder
	for i := range 50 {
		fmt.Fprintf(&want, "%d,", i)
	}
	r.waitText(want.String())
	if res.Command != "fits" {
		t.Errorf("result %+v", res)
	}
}

func TestMouseDrag(t *testing.T) {
	r := newRig(t)
	defer r.assertNothingHeld()
	s := r.find("slider")
	if s.X == nil || s.Value == nil {
		t.Fatalf("slider %+v", s)
	}
	before := *s.Value
	cx, cy := *s.X+*s.Width/2, *s.Y+*s.Height/2
	r.send(fmt.Sprintf("mouse:drag,%d,%d,%d,%d", cx, cy, cx+60, cy))
	testdesk.WaitFor(t, 5*time.Second, "the drag did not move the slider", func() bool {
		v := r.find("slider").Value
		return v != nil && *v != before
	})
	// Down, move, up as separate commands move it back.
	r.send(fmt.Sprintf("mouse:mtp,%d,%d", cx+60, cy))
	r.send("mouse:down")
	r.send("mouse:mm,-100,0")
	r.send("mouse:up")
	testdesk.WaitFor(t, 5*time.Second, "down/move/up did not move the slider back", func() bool {
		v := r.find("slider").Value
		if v == nil {
			return false
		}
		f, err := strconv.ParseFloat(*v, 64)
		return err == nil && f < 50
	})
}

// TestQueueUnderLoad fires 300 send_command calls while the input gate is held, so the queue
// fills: none exceeds the bound, refused ones fail command-dropped, accepted ones all run, in
// the order they were accepted.
func TestQueueUnderLoad(t *testing.T) {
	// Two hundred accepted commands run one by one after the gate opens; on a loaded machine
	// the last ones waited past the default 30 s, which is not what this test is about.
	r := newRigWaiting(t, 150*time.Second)
	r.focusEntry()
	r.send("ctrl-a")
	r.send("BackSpace")
	r.waitText("")
	hold, err := r.d.Gate.Freeze(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan []byte, 300)
	for i := range 300 {
		go func() {
			raw, _ := json.Marshal(map[string]any{"command": fmt.Sprintf("chars:%d,", i)})
			ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
			defer cancel()
			o, err := r.d.Dispatcher.Call(ctx, "send_command", raw)
			if err != nil {
				out <- []byte(err.Error())
				return
			}
			b, _ := json.Marshal(o.Envelope)
			out <- b
		}()
	}
	testdesk.WaitFor(t, 30*time.Second, "not every call reached the queue", func() bool {
		s := r.d.Commands.Stats()
		return s.Accepted+s.Dropped >= 300+3 // the three commands before
	})
	hold()
	type accepted struct {
		seq  uint64
		text string
	}
	var ok []accepted
	dropped := 0
	for range 300 {
		env := contracttest.Check(t, <-out)
		if !env.OK() {
			contracttest.Fail(t, env, contract.Internal, contract.CodeCommandDropped)
			dropped++
			continue
		}
		var res sendResult
		if err := env.DecodeResult(&res); err != nil {
			t.Fatal(err)
		}
		ok = append(ok, accepted{res.Seq, strings.TrimPrefix(res.Command, "chars:")})
	}
	if s := r.d.Commands.Stats(); s.HighWater > queue.MaxPending {
		t.Fatalf("queue reached %d", s.HighWater)
	}
	if dropped == 0 || len(ok) < queue.MaxPending {
		t.Fatalf("%d accepted, %d dropped", len(ok), dropped)
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i].seq < ok[j].seq })
	var want strings.Builder
	for _, a := range ok {
		want.WriteString(a.text)
	}
	// A call returns when its command is accepted; the queue then types some 800 characters
	// one command after the other, which beside a second make test took longer than the
	// entry's 40 s wait below. Wait for the queue to finish first.
	testdesk.WaitFor(t, 120*time.Second, "the queue to run every accepted command", func() bool {
		s := r.d.Commands.Stats()
		return s.Completed >= s.Accepted
	})
	r.waitText(want.String())
}

// lineClient is a telnet-style client of the line server.
type lineClient struct {
	t  *testing.T
	c  net.Conn
	rd *bufio.Reader
}

func dialLines(t *testing.T, addr string) *lineClient {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &lineClient{t: t, c: c, rd: bufio.NewReader(c)}
}

func (l *lineClient) write(s string) {
	l.t.Helper()
	if _, err := l.c.Write([]byte(s)); err != nil {
		l.t.Fatal(err)
	}
}

// readLine reads one reply line, skipping telnet negotiation replies.
func (l *lineClient) readLine() string {
	l.t.Helper()
	_ = l.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	s, err := l.rd.ReadString('\n')
	if err != nil {
		l.t.Fatalf("read: %v (%q)", err, s)
	}
	for strings.HasPrefix(s, "\xff") && len(s) >= 3 {
		s = s[3:]
	}
	return strings.TrimRight(s, "\r\n")
}

func TestLineServer(t *testing.T) {
	r := newRig(t)
	exited := make(chan struct{})
	srv, err := line.Listen("127.0.0.1:0", r.d.LineCommands(), line.ServerOptions{Exit: func() { close(exited) }})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() { srv.Close() })
	if _, err := line.Listen("0.0.0.0:0", r.d.LineCommands(), line.ServerOptions{}); err == nil {
		t.Error("a non-loopback bind was accepted")
	}

	cl := dialLines(t, srv.Addr().String())
	cl.write("\xff\xfd\x01\xff\xfb\x03") // IAC DO ECHO, IAC WILL SUPPRESS-GO-AHEAD
	neg := make([]byte, 6)
	_ = cl.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := cl.rd.Read(neg[:3]); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.rd.Read(neg[3:]); err != nil {
		t.Fatal(err)
	}
	if string(neg) != "\xff\xfc\x01\xff\xfe\x03" {
		t.Fatalf("negotiation answered %q", neg)
	}

	// A query split across packets, CRLF-terminated: one legacy object that maps to an envelope.
	cl.write(fmt.Sprintf(`query {"pid":%d,`, r.pid))
	cl.write(`"maxDepth":2}` + "\r\n")
	var l contract.Legacy
	line := cl.readLine()
	if err := json.Unmarshal([]byte(line), &l); err != nil {
		t.Fatalf("reply %q: %v", line, err)
	}
	if !l.Success || l.Command != "query" || l.Error != nil {
		t.Fatalf("legacy %s", line)
	}
	env, err := contract.FromLegacy(l, "s-line")
	if err != nil {
		t.Fatal(err)
	}
	var q struct{ NodeCount int }
	if err := contracttest.Check(t, contracttest.CheckEnvelope(t, env)).DecodeResult(&q); err != nil || q.NodeCount < 2 {
		t.Fatalf("query via legacy: %+v %v", q, err)
	}

	// A failing tool: the legacy error carries code and category.
	cl.write(`query {"window":"no such window here"}` + "\n")
	if err := json.Unmarshal([]byte(cl.readLine()), &l); err != nil || l.Success || l.ErrorCode != contract.CodeWindowNotFound || l.ErrorCategory != "no-target" {
		t.Fatalf("failing query: %+v %v", l, err)
	}
	env, err = contract.FromLegacy(l, "s-line")
	if err != nil {
		t.Fatal(err)
	}
	contracttest.Fail(t, contracttest.Check(t, contracttest.CheckEnvelope(t, env)), contract.NoTarget, contract.CodeWindowNotFound)

	// Typing with CRLF, LF and NUL delimiters, one command split mid-word; fire-and-forget.
	r.focusEntry()
	cl.write("ctrl-a\r\nchars:ab\x00cha")
	cl.write("rs:c\nchars:d\r")
	r.waitText("abcd")

	// An over-long line is discarded with an error, and the connection stays open.
	cl.write("chars:" + strings.Repeat("z", rawcmd.MaxLine) + "\n")
	if err := json.Unmarshal([]byte(cl.readLine()), &l); err != nil || l.Success || l.ErrorCode != contract.CodeBadArguments {
		t.Fatalf("over-long line: %+v %v", l, err)
	}
	cl.write("unknowncommand\n")
	if err := json.Unmarshal([]byte(cl.readLine()), &l); err != nil || l.ErrorCode != contract.CodeUnknownCommand {
		t.Fatalf("unknown command: %+v %v", l, err)
	}
	cl.write("mcec:ver\x00")
	if got := cl.readLine(); !strings.HasPrefix(got, "mcec ") {
		t.Fatalf("mcec:ver answered %q", got)
	}
	if got := r.entryText(); got != "abcd" {
		t.Errorf("the over-long line typed something: %q", clip(got))
	}

	// A second client at the same time.
	cl2 := dialLines(t, srv.Addr().String())
	cl2.write("mcec:time\n")
	if got := cl2.readLine(); len(got) < 20 {
		t.Errorf("mcec:time answered %q", got)
	}

	// mcec:exit: the reply arrives, then the owner is told to exit.
	cl.write("mcec:exit\n")
	if got := cl.readLine(); got != "mcec exiting" {
		t.Errorf("mcec:exit answered %q", got)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("mcec:exit did not call Exit")
	}
}

func TestSendCommandRefusals(t *testing.T) {
	r := newRig(t)
	if err := os.WriteFile(r.file, []byte("[commands.\"ctrl-s\"]\nenabled = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 5*time.Second, "the commands file was not loaded", func() bool {
		e, ok := r.d.Commands.Table().Lookup("ctrl-s")
		return ok && !e.Enabled
	})
	for _, tt := range []struct {
		line string
		cat  contract.Category
		code contract.Code
	}{
		{"nosuchthing", contract.InvalidArgument, contract.CodeUnknownCommand},
		{"ctrl-s", contract.Internal, contract.CodeCommandDisabled},
		{"mcec:exit", contract.Internal, contract.CodeCommandDisabled},
		{"send_command {}", contract.InvalidArgument, contract.CodeUnknownCommand},
		{"mouse:mtp,99999,5", contract.InvalidArgument, contract.CodeBadArguments},
	} {
		contracttest.Fail(t, r.call("send_command", map[string]any{"command": tt.line}), tt.cat, tt.code)
	}
	if got := r.send("mcec:ver"); !strings.HasPrefix(got.Output, "mcec ") {
		t.Errorf("mcec:ver %+v", got)
	}
}
