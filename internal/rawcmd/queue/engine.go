// Package queue runs raw commands (internal/rawcmd): one queue, bounded, in the order commands
// were accepted, from send_command (internal/tools) and the TCP line server
// (internal/transport/line); input through the input gate alone, what a submitter left held
// released when it goes, the commands file reloaded when it changes.
package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcec/mcec/internal/rawcmd"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/errmap"
	"github.com/mcec/mcec/internal/inputgate"
	"github.com/mcec/mcec/internal/platform"
)

// Defaults.
const (
	// MaxPending is the most commands waiting in the queue (the running one not included).
	MaxPending = 200
	// DefaultWait is how long send_command waits for its command to finish.
	DefaultWait = 30 * time.Second
	// DefaultPoll is how often the commands file is checked for changes.
	DefaultPoll = 2 * time.Second
	// stepLimit bounds one leaf command, so a wedged step cannot stall the queue for ever.
	stepLimit = 60 * time.Second
	// releaseLimit bounds releasing held input after a drop or a failure.
	releaseLimit = 2 * time.Second
)

// Origin is who submitted a command.
type Origin int

// Origins.
const (
	// OriginAgent is send_command: mcec:exit is refused (the MCP client owns the server's life).
	OriginAgent Origin = iota
	// OriginLine is the TCP line protocol.
	OriginLine
)

// Tools is how the engine reaches the agent tools (the daemon adapts the dispatcher).
type Tools interface {
	// Names lists the tools callable as commands.
	Names() []string
	// Call runs a tool; the error is only for an unknown tool.
	Call(ctx context.Context, name string, args json.RawMessage) (contract.Envelope, error)
}

// Screen is what the engine reads of the desktop (platform.Desktop has it).
type Screen interface {
	Displays(ctx context.Context) (platform.Displays, error)
}

// Options configure an Engine. Zero values take the defaults.
type Options struct {
	// Desktop answers the questions commands ask (the screen's size for mouse:); it cannot
	// send input, which goes through Gate alone.
	Desktop Screen
	// Gate is the only way to input (its holds run under the emergency stop); nil: none, and
	// input commands fail display-unavailable.
	Gate    *inputgate.Gate
	Log     *slog.Logger
	Version string
	// StartProcess starts a program inside the desktop (program entries of commands.toml).
	StartProcess func(cmd *exec.Cmd) (<-chan error, error)
	// File is the commands file ("" for none). It is re-read when its mtime or size changes.
	File string
	// Poll is how often File is checked (DefaultPoll).
	Poll time.Duration
	// Wait bounds Run (DefaultWait).
	Wait time.Duration
	// MaxPending bounds the queue (MaxPending).
	MaxPending int
	// KnownKey says whether a name is an X keysym name; nil accepts any name as a key.
	KnownKey func(string) bool
	// Allow, when set, is asked about every leaf of a resolved command that is not an agent tool
	// (tools pass the dispatcher's gate), once per distinct command of a line; an error refuses
	// the whole line before it is queued. ctx is the submitting tool call's (it names the
	// session, dispatch.SessionIDOf), or a bare context for the line protocol.
	Allow func(ctx context.Context, e *rawcmd.Entry) error
	// Audit, when set, is told about every line submitted on the TCP line protocol that is not
	// exactly one agent tool call (those are audited by the dispatcher), with its refusal or nil.
	Audit func(line string, err error)
}

// Result is what a command that ran produced.
type Result struct {
	Command string `json:"command"`
	// Seq is the command's place in the run order (1, 2, …).
	Seq uint64 `json:"seq"`
	// Steps is how many leaf commands ran.
	Steps int `json:"steps"`
	// Output is the text the command produced (meta commands, program starts, tool envelopes),
	// one line per step that produced some.
	Output string `json:"output"`
	// Tool is the envelope when the command was exactly one agent tool call.
	Tool *contract.Envelope `json:"-"`
	// Exit is set by mcec:exit: the submitter exits once it has delivered the reply.
	Exit bool `json:"-"`
}

// Ticket is an accepted command.
type Ticket struct {
	Seq uint64
	// Pending is the queue length right after this command was accepted.
	Pending int
	// IsTool reports that the command is exactly one agent tool call.
	IsTool bool
	// Replies reports that the command produces output worth answering (tools, mcec:…).
	Replies bool
	done    chan struct{}
	res     Result
	err     error
}

// Done closes when the command has run (or was abandoned at shutdown).
func (t *Ticket) Done() <-chan struct{} { return t.done }

// Result is the outcome once Done is closed; the error is a *contract.Error.
func (t *Ticket) Result() (Result, error) { return t.res, t.err }

// Stats count what the queue did.
type Stats struct {
	Accepted, Dropped, Completed uint64
	// HighWater is the longest the queue has been.
	HighWater int
}

type job struct {
	plan   *rawcmd.Plan
	origin Origin
	ticket *Ticket
	owner  uint64 // the Client that submitted it; 0 for Submit's shared submitters (send_command)
	// release, set on a Client's last job, lets go of what owner still holds: queued after the
	// client's own commands, so a controller that sends and hangs up still has them run.
	release bool
}

// heldItem is a key or button a command left down, and who holds it.
type heldItem struct {
	key    string // X keysym name, or "" for a button
	button platform.Button
	owner  uint64
}

// Engine runs raw commands: one dispatcher goroutine, in submission order.
type Engine struct {
	opts  Options
	log   *slog.Logger
	tools Tools

	table    atomic.Pointer[rawcmd.Table]
	tableErr atomic.Pointer[error]

	mu      sync.Mutex
	pending []*job
	seq     uint64
	stats   Stats
	closed  bool

	wake       chan struct{}
	releaseReq chan struct{}
	abortRun   context.CancelFunc // cancels the command running now (Drop); under mu
	ctx        context.Context
	cancel     context.CancelFunc
	wg         sync.WaitGroup

	// Only the dispatcher goroutine touches these.
	runCtx   context.Context // the running command's context: ends with the engine or on Drop
	owner    uint64          // the running command's Client (0: a shared submitter)
	held     []heldItem
	lastLeaf time.Time

	clients atomic.Uint64 // the last Client id handed out
}

// New builds an engine; Start makes it run.
func New(opts Options) *Engine {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = MaxPending
	}
	if opts.Gate == nil {
		opts.Gate = inputgate.New(nil, nil) // no way to input: input commands fail display-unavailable
	}
	e := &Engine{opts: opts, log: opts.Log, wake: make(chan struct{}, 1), releaseReq: make(chan struct{}, 1)}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.table.Store(rawcmd.Builtins(nil))
	return e
}

// Start loads the table (built-ins, the tools, the commands file) and starts the dispatcher and
// the file watcher. tools may be nil.
func (e *Engine) Start(tools Tools) {
	e.tools = tools
	w := &watcher{e: e}
	w.check()
	e.wg.Add(2)
	go func() { defer e.wg.Done(); e.dispatch() }()
	go func() { defer e.wg.Done(); w.run() }()
}

// Close stops the dispatcher: the running command is cancelled, pending ones fail
// command-dropped, and held keys and buttons are released. It is idempotent.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.cancel()
	e.wg.Wait()
	return nil
}

// Drop empties the queue (each pending command fails command-dropped, saying why), cancels the
// command running now, and has the dispatcher release the keys and buttons raw commands hold.
// The engine keeps serving later commands. It returns how many queued commands were dropped.
func (e *Engine) Drop(why string) int {
	e.mu.Lock()
	rest := e.pending
	e.pending = nil
	e.stats.Dropped += uint64(len(rest))
	abort := e.abortRun
	e.mu.Unlock()
	for _, j := range rest {
		if !j.release { // a client's release needs no queue: Drop releases everything
			j.ticket.err = contract.Errorf(contract.CodeCommandDropped, "%s was dropped before it ran: %s", rawcmd.Clip(j.plan.Line, 80), why)
		}
		close(j.ticket.done)
	}
	if abort != nil {
		abort()
	}
	select {
	case e.releaseReq <- struct{}{}:
	default:
	}
	if len(rest) > 0 || abort != nil {
		e.log.Warn("raw command queue dropped", "reason", why, "queued", len(rest), "running", abort != nil)
	}
	return len(rest)
}

// Table is the table in force.
func (e *Engine) Table() *rawcmd.Table { return e.table.Load() }

// TableError is why the commands file was last refused (nil when it loaded or there is none).
func (e *Engine) TableError() error {
	if p := e.tableErr.Load(); p != nil {
		return *p
	}
	return nil
}

// Stats returns the queue counters.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// Check resolves a line without running it: the error Submit would give before enqueueing.
func (e *Engine) Check(line string) error {
	_, err := e.prepare(context.Background(), line, OriginAgent)
	return err
}

func (e *Engine) prepare(ctx context.Context, line string, origin Origin) (*rawcmd.Plan, error) {
	p, err := e.table.Load().Resolve(line, e.opts.KnownKey)
	if errors.Is(err, rawcmd.ErrTooBig) {
		return nil, e.drop(line, fmt.Sprintf("it expands to more than %d commands", rawcmd.MaxTree))
	}
	if err != nil {
		return nil, err
	}
	if e.opts.Allow != nil {
		// Once per command: the answer is the same for each leaf of a line, and a grant the
		// operator gave for one use covers the line that uses it, not its first leaf alone.
		asked := map[*rawcmd.Entry]bool{}
		for _, s := range p.Steps {
			if s.Entry.Kind == rawcmd.EntryTool || asked[s.Entry] {
				continue
			}
			asked[s.Entry] = true
			if err := e.opts.Allow(ctx, s.Entry); err != nil {
				return nil, err
			}
		}
	}
	if origin == OriginAgent {
		for _, s := range p.Steps {
			if s.Entry.Kind == rawcmd.EntryMeta && s.Entry.Name == "mcec:exit" {
				return nil, contract.Errorf(contract.CodeCommandDisabled,
					"mcec:exit is served on the TCP line protocol only: the MCP client owns this server's lifetime")
			}
		}
	}
	return p, nil
}

// drop logs a refused command, asks the dispatcher to release held input, and returns the
// command-dropped error.
func (e *Engine) drop(line, why string) error {
	e.mu.Lock()
	e.stats.Dropped++
	e.mu.Unlock()
	e.log.Warn("raw command dropped", "command", rawcmd.Clip(line, 80), "reason", why)
	select {
	case e.releaseReq <- struct{}{}:
	default:
	}
	return contract.Errorf(contract.CodeCommandDropped, "%s was dropped whole because %s; none of it ran, and held keys and buttons are released", rawcmd.Clip(line, 80), why)
}

// Submit resolves line and enqueues it. It refuses before enqueueing: unknown-command,
// command-disabled, bad-arguments (syntax), command-dropped (tree over rawcmd.MaxTree, queue full,
// shutting down).
func (e *Engine) Submit(line string, origin Origin) (*Ticket, error) {
	return e.submit(context.Background(), line, origin, 0)
}

func (e *Engine) submit(ctx context.Context, line string, origin Origin, owner uint64) (*Ticket, error) {
	p, err := e.prepare(ctx, line, origin)
	if origin == OriginLine && e.opts.Audit != nil && (p == nil || len(p.Steps) != 1 || p.Steps[0].Entry.Kind != rawcmd.EntryTool) {
		e.opts.Audit(line, err)
	}
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	switch {
	case e.closed:
		e.mu.Unlock()
		return nil, e.drop(line, "the server is shutting down")
	case len(e.pending) >= e.opts.MaxPending:
		e.mu.Unlock()
		return nil, e.drop(line, fmt.Sprintf("the queue is full (%d commands pending)", e.opts.MaxPending))
	}
	e.seq++
	t := &Ticket{Seq: e.seq, done: make(chan struct{})}
	if len(p.Steps) == 1 && p.Steps[0].Entry.Kind == rawcmd.EntryTool {
		t.IsTool = true
	}
	for _, s := range p.Steps {
		t.Replies = t.Replies || s.Entry.Kind == rawcmd.EntryTool || s.Entry.Kind == rawcmd.EntryMeta
	}
	e.pending = append(e.pending, &job{plan: p, origin: origin, ticket: t, owner: owner})
	t.Pending = len(e.pending)
	e.stats.Accepted++
	e.stats.HighWater = max(e.stats.HighWater, len(e.pending))
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	return t, nil
}

// Run submits line and waits until it ran, at most Options.Wait: then it fails
// send-command-timeout while the command itself goes on.
func (e *Engine) Run(ctx context.Context, line string, origin Origin) (Result, error) {
	t, err := e.submit(ctx, line, origin, 0)
	if err != nil {
		return Result{}, err
	}
	timer := time.NewTimer(e.opts.Wait)
	defer timer.Stop()
	select {
	case <-t.done:
		return t.Result()
	case <-timer.C:
		return Result{}, contract.Errorf(contract.CodeSendCommandTimeout,
			"%s did not finish within %s; it is still queued or running and will complete, but its output is lost", rawcmd.Clip(line, 80), e.opts.Wait)
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

func (e *Engine) pop() *job {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.pending) == 0 {
		return nil
	}
	j := e.pending[0]
	e.pending[0] = nil
	e.pending = e.pending[1:]
	return j
}

// dispatch is the one goroutine that runs commands.
func (e *Engine) dispatch() {
	defer e.shutdown()
	for {
		select {
		case <-e.releaseReq:
			e.releaseHeld("a command was dropped")
		default:
		}
		j := e.pop()
		if j == nil {
			select {
			case <-e.wake:
			case <-e.releaseReq:
				e.releaseHeld("a command was dropped")
			case <-e.ctx.Done():
				return
			}
			continue
		}
		if j.release {
			e.releaseOwner(j.owner)
			close(j.ticket.done)
			continue
		}
		runCtx, abort := context.WithCancel(e.ctx)
		e.owner = j.owner
		e.mu.Lock()
		e.runCtx, e.abortRun = runCtx, abort
		e.mu.Unlock()
		res, err := e.runPlan(j)
		e.mu.Lock()
		e.abortRun = nil
		e.mu.Unlock()
		abort()
		res.Seq = j.ticket.Seq
		j.ticket.res, j.ticket.err = res, err
		close(j.ticket.done)
		e.mu.Lock()
		e.stats.Completed++
		e.mu.Unlock()
		if e.ctx.Err() != nil {
			return
		}
	}
}

// shutdown fails what is still queued and releases held input.
func (e *Engine) shutdown() {
	e.mu.Lock()
	e.closed = true
	rest := e.pending
	e.pending = nil
	e.mu.Unlock()
	for _, j := range rest {
		if !j.release {
			j.ticket.err = contract.Errorf(contract.CodeCommandDropped, "%s was dropped: the server is shutting down", rawcmd.Clip(j.plan.Line, 80))
		}
		close(j.ticket.done)
	}
	e.releaseHeld("shutting down")
}

func (e *Engine) runPlan(j *job) (Result, error) {
	res := Result{Command: j.plan.Line}
	var out []string
	for i := range j.plan.Steps {
		s := &j.plan.Steps[i]
		if err := e.pace(); err != nil {
			return res, contract.Errorf(contract.CodeCommandDropped, "%s was abandoned: the server is shutting down", rawcmd.Clip(j.plan.Line, 80))
		}
		o, err := e.runStep(s, &res)
		e.lastLeaf = time.Now()
		if err != nil {
			e.releaseHeld("a command failed")
			ce := asContractError(err)
			if len(j.plan.Steps) > 1 {
				ce.Detail = fmt.Sprintf("step %d (%s): %s", i+1, rawcmd.Clip(s.Line, 60), ce.Detail)
			}
			return res, ce
		}
		res.Steps++
		if o != "" {
			out = append(out, o)
		}
	}
	res.Output = strings.Join(out, "\n")
	if len(j.plan.Steps) != 1 {
		res.Tool = nil
	}
	return res, nil
}

// pace waits out the table's pacing since the last leaf.
func (e *Engine) pace() error {
	d := time.Until(e.lastLeaf.Add(e.table.Load().Pacing))
	if d <= 0 {
		return e.ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-e.ctx.Done():
		return e.ctx.Err()
	}
}

func (e *Engine) runStep(s *rawcmd.Step, res *Result) (string, error) {
	ctx, cancel := context.WithTimeout(e.runCtx, stepLimit)
	defer cancel()
	if s.NeedsInput() {
		h, err := e.opts.Gate.Gesture(ctx)
		if err != nil {
			return "", err
		}
		defer h.Release()
		if h.Input() == nil {
			return "", contract.Errorf(contract.CodeDisplayUnavailable, "no desktop to send input to")
		}
		return "", h.Stopped(e.input(h.Context(), h.Input(), s))
	}
	switch s.Entry.Kind {
	case rawcmd.EntryPrefix: // pause:
		t := time.NewTimer(s.Cmd.Pause)
		defer t.Stop()
		select {
		case <-t.C:
			return "", nil
		case <-e.runCtx.Done():
			return "", contract.Errorf(contract.CodeCommandDropped, "pause abandoned: the command was dropped or the server is shutting down")
		}
	case rawcmd.EntryMeta:
		return e.meta(s, res)
	case rawcmd.EntryProgram:
		return e.startProgram(s)
	case rawcmd.EntryTool:
		return e.callTool(ctx, s, res)
	}
	return "", contract.Errorf(contract.CodeUnhandledException, "no runner for %s", s.Entry.Name)
}

func (e *Engine) input(ctx context.Context, in platform.Input, s *rawcmd.Step) error {
	switch s.Cmd.Kind {
	case rawcmd.KindChars:
		return in.Type(ctx, s.Cmd.Text)
	case rawcmd.KindShiftDown:
		for _, k := range s.Keys {
			if err := in.Press(ctx, k); err != nil {
				return err
			}
			e.held = append(e.held, heldItem{key: k, owner: e.owner})
		}
		return nil
	case rawcmd.KindShiftUp:
		var errs []error
		for i := len(s.Keys) - 1; i >= 0; i-- {
			errs = append(errs, in.Release(ctx, s.Keys[i]))
			e.forget(heldItem{key: s.Keys[i]})
		}
		return errors.Join(errs...)
	case rawcmd.KindMouse:
		return e.mouse(ctx, in, s.Cmd.Mouse)
	}
	return in.Chord(ctx, s.Keys...) // key:, named keys and chords, keysym names
}

// forget drops the newest record of a key or button that was let go, whoever held it: it is up.
func (e *Engine) forget(h heldItem) {
	for i := len(e.held) - 1; i >= 0; i-- {
		if e.held[i].key == h.key && e.held[i].button == h.button {
			e.held = append(e.held[:i], e.held[i+1:]...)
			return
		}
	}
}

func (e *Engine) mouse(ctx context.Context, in platform.Input, m rawcmd.Mouse) error {
	switch m.Op {
	case rawcmd.MouseMoveTo:
		return in.MoveTo(ctx, platform.Point{X: m.X, Y: m.Y})
	case rawcmd.MouseVScroll:
		return in.Scroll(ctx, 0, -m.X) // vs,n: n > 0 scrolls up, as the reference's wheel delta
	case rawcmd.MouseHScroll:
		return in.Scroll(ctx, m.X, 0)
	case rawcmd.MouseDrag:
		path := make([]platform.Point, len(m.Path))
		for i, p := range m.Path {
			path[i] = platform.Point(p)
		}
		return in.Drag(ctx, path, platform.ButtonLeft)
	}
	button := platform.Button(m.Button)
	p, err := in.Pointer(ctx)
	if err != nil {
		return err
	}
	switch m.Op {
	case rawcmd.MouseClick:
		return in.Click(ctx, p, button, 1)
	case rawcmd.MouseDouble:
		return in.Click(ctx, p, button, 2)
	case rawcmd.MouseDown:
		if err := in.ButtonDown(ctx, p, button); err != nil {
			return err
		}
		e.held = append(e.held, heldItem{button: button, owner: e.owner})
		return nil
	case rawcmd.MouseUp:
		e.forget(heldItem{button: button})
		return in.ButtonUp(ctx, p, button)
	case rawcmd.MouseMoveBy:
		d, err := e.opts.Desktop.Displays(ctx)
		if err != nil {
			return err
		}
		b := d.VirtualBounds
		to := platform.Point{X: min(max(p.X+m.X, b.X), b.X+b.Width-1), Y: min(max(p.Y+m.Y, b.Y), b.Y+b.Height-1)}
		return in.MoveTo(ctx, to)
	}
	return fmt.Errorf("%w: mouse action %s", platform.ErrUnsupported, m.Op)
}

// releaseHeld lets go of every key and button the engine's commands left down, newest first, on
// a fresh context: whatever ended the command may also have ended its context.
func (e *Engine) releaseHeld(why string) {
	all := e.held
	e.held = nil
	e.release(all, why)
}

// releaseOwner lets go of what one Client's commands left down. A key or button another
// submitter also holds stays down (its record goes with this client): releasing it would undo
// that submitter's shiftdown:.
func (e *Engine) releaseOwner(owner uint64) {
	var mine, rest []heldItem
	for _, h := range e.held {
		if h.owner == owner {
			mine = append(mine, h)
		} else {
			rest = append(rest, h)
		}
	}
	e.held = rest
	mine = slices.DeleteFunc(mine, func(h heldItem) bool {
		return slices.ContainsFunc(rest, func(o heldItem) bool { return o.key == h.key && o.button == h.button })
	})
	e.release(mine, "its client disconnected")
}

// release lets go of items, newest first, on a fresh context.
func (e *Engine) release(items []heldItem, why string) {
	if len(items) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), releaseLimit)
	defer cancel()
	h, err := e.opts.Gate.Cleanup(ctx)
	if err != nil {
		e.log.Warn("releasing held input: the input gate stayed busy", "reason", why, "err", err)
		return
	}
	defer h.Release()
	in := h.Input()
	if in == nil {
		return
	}
	var names []string
	for i := len(items) - 1; i >= 0; i-- {
		h := items[i]
		var err error
		if h.key != "" {
			names = append(names, h.key)
			err = in.Release(ctx, h.key)
		} else {
			names = append(names, fmt.Sprintf("button%d", h.button))
			var p platform.Point
			if p, err = in.Pointer(ctx); err == nil {
				err = in.ButtonUp(ctx, p, h.button)
			}
		}
		if err != nil {
			e.log.Warn("releasing held input", "what", names[len(names)-1], "err", err)
		}
	}
	e.log.Info("released held input", "reason", why, "released", names)
}

// Client is one submitter whose held keys and buttons are its own (the line server makes one
// per connection): Close releases what its commands left down, so a controller that hangs up
// after shiftdown:ctrl or mouse:lbd cannot turn a later click into a Ctrl+click or a drag.
type Client struct {
	e      *Engine
	id     uint64
	origin Origin
	once   sync.Once
}

// NewClient returns a submitter of its own.
func (e *Engine) NewClient(origin Origin) *Client {
	return &Client{e: e, id: e.clients.Add(1), origin: origin}
}

// Submit is Engine.Submit on the client's behalf.
func (c *Client) Submit(line string) (*Ticket, error) {
	return c.e.submit(context.Background(), line, c.origin, c.id)
}

// Close queues the release of what the client holds behind its own commands (they still run:
// controllers send and hang up). It never blocks, ignores the queue bound and is idempotent; after
// the engine closed, shutdown has released everything anyway.
func (c *Client) Close() {
	c.once.Do(func() {
		e := c.e
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			return
		}
		e.pending = append(e.pending, &job{owner: c.id, release: true, ticket: &Ticket{done: make(chan struct{})}})
		e.mu.Unlock()
		select {
		case e.wake <- struct{}{}:
		default:
		}
	})
}

func (e *Engine) meta(s *rawcmd.Step, res *Result) (string, error) {
	switch s.Entry.Name {
	case "mcec:ver":
		return "mcec " + e.opts.Version, nil
	case "mcec:time":
		return time.Now().Format(time.RFC3339), nil
	case "mcec:cmds":
		var names []string
		for _, en := range e.table.Load().Entries() {
			if en.Enabled {
				names = append(names, en.Name)
			}
		}
		if err := e.TableError(); err != nil {
			names = append(names, "# commands file refused: "+err.Error())
		}
		return strings.Join(names, "\n"), nil
	case "mcec:exit":
		res.Exit = true
		return "mcec exiting", nil
	}
	return "", contract.Errorf(contract.CodeUnknownCommand, "%s is not a command", s.Entry.Name)
}

func (e *Engine) startProgram(s *rawcmd.Step) (string, error) {
	if e.opts.StartProcess == nil {
		return "", contract.Errorf(contract.CodeLaunchFailed, "%s: this server cannot start programs", s.Entry.Name)
	}
	argv := s.Entry.Program
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return "", contract.Errorf(contract.CodeLaunchFailed, "%s: %v", s.Entry.Name, err)
	}
	cmd := exec.Command(path, argv[1:]...)
	if home, err := os.UserHomeDir(); err == nil {
		cmd.Dir = home
	}
	if _, err := e.opts.StartProcess(cmd); err != nil {
		return "", contract.Errorf(contract.CodeLaunchFailed, "%s: %v", s.Entry.Name, err)
	}
	return fmt.Sprintf("started %s (pid %d)", argv[0], cmd.Process.Pid), nil
}

func (e *Engine) callTool(ctx context.Context, s *rawcmd.Step, res *Result) (string, error) {
	if e.tools == nil {
		return "", contract.Errorf(contract.CodeUnknownCommand, "%s: agent tools are not available here", s.Entry.Name)
	}
	args := s.Cmd.Args
	if args == nil {
		args = json.RawMessage("{}")
	}
	env, err := e.tools.Call(ctx, s.Cmd.Name, args)
	if err != nil {
		return "", contract.Errorf(contract.CodeUnknownCommand, "%s: %v", s.Cmd.Name, err)
	}
	res.Tool = &env
	b, err := json.Marshal(env)
	if err != nil {
		return "", err
	}
	if !env.OK() {
		ce := *env.Err()
		ce.Detail = s.Cmd.Name + ": " + ce.Detail
		return "", &ce
	}
	return string(b), nil
}

// asContractError maps a step's failure onto the contract (internal/errmap, the tools' mapping
// with the raw commands' reading of a deadline and a cancellation).
func asContractError(err error) *contract.Error {
	return errmap.ToContract(err, errmap.RawCommands)
}
