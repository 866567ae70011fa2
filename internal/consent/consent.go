// Package consent is the broker between request-command-access and the operator. An agent asks
// for gated commands; the broker freezes actuation (only read-only tools are served, and the
// input gate is held so no raw command can type either), shows the question to a prompter the
// operator runs (`mcec consent` on the control socket), waits up to 120 s for the answer, and
// applies a grant to the live policy — in memory only, for the scope the operator chose: the
// asking session's next call (once), that session while it lives, or this process.
//
// Decisions (docs/safety.md, docs/design.md): a deny is global and sticky — every later request
// fails consent-denied at once, whatever it names, so an agent cannot wear the operator down
// by asking again under other names; grant-any-later makes every later request pass without
// asking. A request whose names are all enabled already succeeds without asking, even after a
// deny, since it asks for nothing.
package consent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcec/mcec/contract"
)

// Limits (PRODUCT.md §8).
const (
	DefaultTimeout = 120 * time.Second
	MaxCommands    = 8
	MaxReason      = 300 // characters (runes) of the reason as the agent sent it
	// reconnectGrace: a prompter that has just taken a question or answered one is on its way
	// back to wait for the next; it still counts as available for this long.
	reconnectGrace = 5 * time.Second
)

// State is where a command name stands (safety.Policy.State).
type State int

const (
	Unknown State = iota // no such tool or raw command
	Enabled              // already allowed
	Gated                // refused until granted
	Fixed                // refused by the operator's configuration; a grant cannot change it
)

// Commands is the live gate the broker reads and grants into.
type Commands interface {
	State(name string) State
	// Grant enables names for the rest of the process, in memory only.
	Grant(names []string)
	// Granted lists what Grant enabled and Revoke has not taken back.
	Granted() []string
	// Revoke gates name again; false when it was not granted.
	Revoke(name string) bool
	// GrantFor enables names for one session alone: each of its calls while it lives
	// (ScopeSession) or its next call that needs each (ScopeOnce).
	GrantFor(scope Scope, session string, names []string)
	// ScopedGrants lists the grants for single sessions in force.
	ScopedGrants() []ScopedGrant
	// RevokeFor takes back a grant for one session; false when there was none.
	RevokeFor(scope Scope, session, name string) bool
}

// Answer is the operator's decision.
type Answer string

const (
	// GrantOnce: for the asking session's next call that needs each name.
	GrantOnce Answer = "grant-once"
	// GrantSession: for the asking session, until it ends.
	GrantSession Answer = "grant-session"
	// Grant: for every session, until mcec exits.
	Grant         Answer = "grant"
	GrantAnyLater Answer = "grant-any-later"
	Deny          Answer = "deny"
)

// Scope is how far a grant reaches (safety.GrantScope, by the same names).
type Scope string

const (
	ScopeOnce    Scope = "once"
	ScopeSession Scope = "session"
	ScopeProcess Scope = "process"
)

// ScopedGrant is a grant for one session.
type ScopedGrant struct {
	Name    string `json:"name"`
	Scope   Scope  `json:"scope"`
	Session string `json:"session"`
}

// Question is what a prompter shows the operator. Every text field is already neutralized.
type Question struct {
	ID       string    `json:"id"`
	Commands []string  `json:"commands"`
	Reason   string    `json:"reason"`
	Session  string    `json:"session,omitempty"`
	Asked    time.Time `json:"asked"`
	Deadline time.Time `json:"deadline"`
}

// Options configure a Broker.
type Options struct {
	Commands Commands
	// Gate is the input gate (inputgate.Gate), held while a question is open so no gesture
	// runs; nil: nothing to hold.
	Gate Freezer
	// Timeout is how long a request waits for the operator (0: DefaultTimeout).
	Timeout time.Duration
	// ViaClient lets the agent's own MCP client ask its human (elicitation, form mode) when
	// the call carries a ClientPrompter: the operator allowed it in the configuration. Its
	// answers are of lower trust than the operator's, so they grant only what was asked.
	ViaClient bool
	Log       *slog.Logger
}

// Outcome is a successful request's result.
type Outcome struct {
	Granted        []string
	AlreadyEnabled []string
	// Asked says whether the operator was asked (false: all enabled, or grant-any-later).
	Asked bool
	// AnsweredBy is who answered when someone was asked: "operator" (mcec consent, the
	// on-screen dialog) or "client" (the human at the agent's MCP client).
	AnsweredBy string
	// Scope is how far Granted reaches: ScopeOnce, ScopeSession or ScopeProcess ("" when
	// nothing was granted).
	Scope Scope
}

// Broker is safe for concurrent use.
type Broker struct {
	opts Options

	mu         sync.Mutex
	pending    *pending
	denied     bool
	anyLater   bool
	waiting    int       // prompters blocked in Next
	attending  int       // prompters present between questions (Attend), such as open console pages
	lastActive time.Time // a prompter took or answered a question
	changed    chan struct{}
	seq        int
}

type pending struct {
	q         Question
	published bool // the gate is held and prompters may see it
	answer    chan answer
	answered  bool
}

// answer is a decision and who made it (AnsweredBy).
type answer struct {
	a  Answer
	by string
}

// Freezer keeps every gesture out while it is held (inputgate.Gate.Freeze).
type Freezer interface {
	Freeze(ctx context.Context) (release func(), err error)
}

// New returns a broker.
func New(opts Options) *Broker {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Broker{opts: opts, changed: make(chan struct{})}
}

// notifyLocked wakes every goroutine waiting in Next.
func (b *Broker) notifyLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// Pending reports whether a question is open (actuation is frozen).
func (b *Broker) Pending() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pending != nil
}

// Frozen is consent-pending while a question is open, naming what was refused; nil otherwise.
func (b *Broker) Frozen(what string) error {
	if !b.Pending() {
		return nil
	}
	return contract.Errorf(contract.CodeConsentPending,
		"the operator is being asked to grant commands (request-command-access): until they answer only observation "+
			"(read-only tools) is served. Retry %s after the request returns", what)
}

// Request validates the request, asks the operator when something gated is named, and applies
// the grant. Failures are *contract.Error: bad-arguments, command-disabled, consent-denied,
// consent-pending, consent-unavailable, consent-timeout.
func (b *Broker) Request(ctx context.Context, names []string, reason, session string) (Outcome, error) {
	names, err := validate(names, reason)
	if err != nil {
		return Outcome{}, err
	}
	var out Outcome
	var unknown, fixed, gated []string
	for _, n := range names {
		switch b.opts.Commands.State(n) {
		case Enabled:
			out.AlreadyEnabled = append(out.AlreadyEnabled, n)
		case Gated:
			gated = append(gated, n)
		case Fixed:
			fixed = append(fixed, n)
		default:
			unknown = append(unknown, n)
		}
	}
	out.Granted = []string{}
	if out.AlreadyEnabled == nil {
		out.AlreadyEnabled = []string{}
	}
	switch {
	case len(unknown) > 0:
		return Outcome{}, contract.Errorf(contract.CodeBadArguments,
			"unknown command names: %s (use tool names, or raw command names from commandAccess / mcec:cmds)", quoteList(unknown))
	case len(fixed) > 0:
		return Outcome{}, contract.Errorf(contract.CodeCommandDisabled,
			"%s switched off in the operator's configuration; consent cannot enable it. Do not retry", quoteList(fixed))
	case len(gated) == 0:
		return out, nil
	}

	ctx, cancel := context.WithTimeout(ctx, b.opts.Timeout)
	defer cancel()
	client := clientPrompterOf(ctx)
	if !b.opts.ViaClient {
		client = nil
	}
	// One question goes to the client: the form, which can answer, when the operator allows
	// it; otherwise a pointer to the console, where the operator answers.
	pointer := consolePointerOf(ctx)
	if client != nil {
		pointer = nil
	}
	p, err := b.open(gated, reason, session, client != nil || pointer != nil)
	if err != nil || p == nil { // p == nil: granted at once (grant-any-later)
		if err == nil {
			out.Granted, out.Scope = gated, ScopeProcess
		}
		return out, err
	}
	defer b.close(p)
	// Hold the input gate before anyone sees the question: a gesture in flight finishes first,
	// and from then on no raw command can type into the operator's terminal or prompt.
	if b.opts.Gate != nil {
		release, err := b.opts.Gate.Freeze(ctx)
		if err != nil {
			return Outcome{}, b.waitErr(ctx, err)
		}
		defer release()
	}
	b.mu.Lock()
	p.published = true
	b.notifyLocked()
	b.mu.Unlock()
	b.opts.Log.Warn("consent requested", "id", p.q.ID, "commands", p.q.Commands, "session", session, "viaClient", client != nil)
	if pointer != nil {
		go pointer(ctx, p.q)
	}
	if client != nil {
		// The operator's prompter may answer first; the client's question ends with ctx.
		go func() {
			if a, ok := client(ctx, p.q); ok {
				_ = b.deliver(p.q.ID, answer{a: a, by: "client"}, false)
			}
		}()
	}

	select {
	case a := <-p.answer:
		return b.apply(p, a, gated, out)
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case a := <-p.answer: // answered at the deadline: the operator was told it applied
			b.mu.Unlock()
			return b.apply(p, a, gated, out)
		default:
			p.answered = true // a late answer gets ErrClosed
		}
		b.mu.Unlock()
		return Outcome{}, b.waitErr(ctx, ctx.Err())
	}
}

// apply carries out the answer.
func (b *Broker) apply(p *pending, ans answer, gated []string, out Outcome) (Outcome, error) {
	a := ans.a
	if ans.by == "client" && a == GrantAnyLater {
		a = Grant // a lower-trust answer never opens later requests
	}
	b.opts.Log.Warn("consent answered", "id", p.q.ID, "answer", string(a), "by", ans.by)
	b.mu.Lock()
	defer b.mu.Unlock()
	out.Scope = ScopeProcess
	switch a {
	case Deny:
		b.denied = true
		return Outcome{}, deniedError()
	case GrantAnyLater:
		b.anyLater = true
	case GrantOnce:
		out.Scope = ScopeOnce
	case GrantSession:
		out.Scope = ScopeSession
	}
	if out.Scope == ScopeProcess {
		b.opts.Commands.Grant(gated)
	} else {
		// The question names the asking session (Request's session); a grant for no session
		// reaches no call, which is narrower, never broader.
		b.opts.Commands.GrantFor(out.Scope, p.q.Session, gated)
	}
	out.Granted, out.Asked, out.AnsweredBy = gated, true, ans.by
	return out, nil
}

// waitErr turns the end of a wait into consent-timeout (the operator did not answer in time)
// or the caller's own cancellation.
func (b *Broker) waitErr(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		b.opts.Log.Warn("consent timed out")
		return contract.Errorf(contract.CodeConsentTimeout,
			"the operator did not answer within %s; nothing was granted. Ask again only if the task still needs it", b.opts.Timeout)
	}
	return err
}

func deniedError() error {
	return contract.Errorf(contract.CodeConsentDenied,
		"the operator denied command access; for the rest of this server's life every request fails at once. "+
			"Do not ask again: continue without these commands or stop and tell the user")
}

// open registers the question, or decides at once: nil pending with nil error means granted
// without asking (grant-any-later).
// viaClient: the client was asked or pointed to the console, so the request waits even with no
// operator prompter running now.
func (b *Broker) open(gated []string, reason, session string, viaClient bool) (*pending, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.denied:
		return nil, deniedError()
	case b.pending != nil:
		return nil, contract.Errorf(contract.CodeConsentPending,
			"another consent request is waiting for the operator; retry after it is answered")
	case b.anyLater:
		b.opts.Commands.Grant(gated)
		b.opts.Log.Warn("consent granted without asking (grant-any-later)", "commands", gated, "session", session)
		return nil, nil
	case !b.availableLocked() && !viaClient:
		return nil, contract.Errorf(contract.CodeConsentUnavailable,
			"no consent prompter is running, so the operator cannot be asked: they can run `mcec consent` in a terminal, "+
				"or start mcec with --allow-all. Do not retry until they say so")
	}
	b.seq++
	now := time.Now()
	b.pending = &pending{answer: make(chan answer, 1), q: Question{
		ID: "c" + strconv.Itoa(b.seq), Commands: gated, Reason: Neutralize(reason), Session: session,
		Asked: now, Deadline: now.Add(b.opts.Timeout)}}
	return b.pending, nil
}

func (b *Broker) close(p *pending) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == p {
		b.pending = nil
		b.notifyLocked()
	}
}

// Grants is what the operator has granted so far in this process.
type Grants struct {
	// Commands are the names granted for every session and not revoked.
	Commands []string `json:"commands"`
	// Scoped are the grants for one session (once, or while it lives) not used or revoked.
	Scoped []ScopedGrant `json:"scoped"`
	// AnyLater: every later request is granted without asking (grant-any-later).
	AnyLater bool `json:"anyLater"`
	// Denied: the operator denied once, so every later request fails consent-denied.
	Denied bool `json:"denied"`
}

// Grants lists the grants in force.
func (b *Broker) Grants() Grants {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Grants{Commands: b.opts.Commands.Granted(), Scoped: b.opts.Commands.ScopedGrants(), AnyLater: b.anyLater, Denied: b.denied}
}

// Revoke takes back the grant of name, gating it again from the next call on. The empty name
// takes back grant-any-later: later requests ask the operator again. It reports whether there
// was something to take back. A deny is never lifted: it is the operator's final word for the
// process (see the package comment).
func (b *Broker) Revoke(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if name == "" {
		was := b.anyLater
		b.anyLater = false
		if was {
			b.opts.Log.Warn("consent: grant-any-later revoked")
		}
		return was
	}
	was := b.opts.Commands.Revoke(name)
	if was {
		b.opts.Log.Warn("consent: grant revoked", "command", name)
	}
	return was
}

// RevokeFor takes back a grant for one session (ScopeProcess: Revoke). It reports whether
// there was one.
func (b *Broker) RevokeFor(scope Scope, session, name string) bool {
	if scope == ScopeProcess || scope == "" {
		return b.Revoke(name)
	}
	was := b.opts.Commands.RevokeFor(scope, session, name)
	if was {
		b.opts.Log.Warn("consent: grant revoked", "command", name, "scope", string(scope), "session", session)
	}
	return was
}

// Available reports whether a prompter is there to ask (waiting, or just back from answering).
func (b *Broker) Available() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.availableLocked()
}

func (b *Broker) availableLocked() bool {
	return b.waiting > 0 || b.attending > 0 || (!b.lastActive.IsZero() && time.Since(b.lastActive) < reconnectGrace)
}

// Attend counts a prompter as present until leave is called, even between its calls to Next:
// a console page that is open will show a question, whether or not its goroutine is in Next
// at the moment the question is asked.
func (b *Broker) Attend() (leave func()) {
	b.mu.Lock()
	b.attending++
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.attending--
			b.mu.Unlock()
		})
	}
}

// Next blocks until a question other than the one with ID after is open, or ctx ends. A
// prompter waiting here is what makes consent available.
func (b *Broker) Next(ctx context.Context, after string) (Question, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		if p := b.pending; p != nil && p.published && !p.answered && p.q.ID != after {
			b.lastActive = time.Now()
			return p.q, nil
		}
		ch := b.changed
		b.waiting++
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		b.mu.Lock()
		b.waiting--
		if ctx.Err() != nil {
			return Question{}, ctx.Err()
		}
	}
}

// ErrClosed is the answer to a question that is no longer open.
var ErrClosed = errors.New("this request is no longer open (answered elsewhere, timed out, or withdrawn); nothing was applied")

// Answer delivers the operator's decision on question id.
func (b *Broker) Answer(id string, a Answer) error {
	return b.deliver(id, answer{a: a, by: "operator"}, true)
}

// deliver hands an answer to the open question id; an operator's prompter counts as active.
func (b *Broker) deliver(id string, ans answer, operator bool) error {
	switch ans.a {
	case GrantOnce, GrantSession, Grant, GrantAnyLater, Deny:
	default:
		return fmt.Errorf("unknown answer %q (want grant-once, grant-session, grant, grant-any-later or deny)", ans.a)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if operator {
		b.lastActive = time.Now()
	}
	p := b.pending
	if p == nil || p.q.ID != id || !p.published || p.answered {
		return ErrClosed
	}
	p.answered = true
	p.answer <- ans
	return nil
}

// validate checks the arguments and returns the names without duplicates.
func validate(names []string, reason string) ([]string, error) {
	if len(names) == 0 || len(names) > MaxCommands {
		return nil, contract.Errorf(contract.CodeBadArguments, "commands must name 1 to %d commands, got %d", MaxCommands, len(names))
	}
	var out []string
	for _, n := range names {
		if n == "" || Neutralize(n) != n || strings.ContainsAny(n, " \t") {
			return nil, contract.Errorf(contract.CodeBadArguments, "command name %q is not a command name", n)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if strings.TrimSpace(reason) == "" {
		return nil, contract.Errorf(contract.CodeBadArguments, "reason is required: tell the operator why the task needs these commands")
	}
	if n := utf8.RuneCountInString(reason); n > MaxReason {
		return nil, contract.Errorf(contract.CodeBadArguments, "reason is %d characters; at most %d", n, MaxReason)
	}
	return out, nil
}

// Neutralize makes text safe to show the operator: every control character (Unicode Cc),
// format character (Cf: bidi embeddings and overrides U+202A–U+202E, isolates U+2066–U+2069,
// zero-width characters, the BOM), line and paragraph separator, and invalid UTF-8 byte becomes
// U+FFFD, so nothing can move the cursor, rewrite the terminal, or reorder what the operator
// reads.
func Neutralize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == utf8.RuneError || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
			r = '\uFFFD'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
