package consent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/inputgate"
)

// fakeCommands is a policy: launch and keysym gated, windows enabled, blocked fixed.
type fakeCommands struct {
	mu      sync.Mutex
	granted []string
	scoped  []ScopedGrant
}

func (f *fakeCommands) GrantFor(scope Scope, session string, names []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range names {
		f.scoped = append(f.scoped, ScopedGrant{Name: n, Scope: scope, Session: session})
	}
}

func (f *fakeCommands) ScopedGrants() []ScopedGrant {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.scoped)
}

func (f *fakeCommands) RevokeFor(scope Scope, session, name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.scoped)
	f.scoped = slices.DeleteFunc(f.scoped, func(g ScopedGrant) bool { return g == ScopedGrant{Name: name, Scope: scope, Session: session} })
	return len(f.scoped) < n
}

func (f *fakeCommands) State(name string) State {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case slices.Contains(f.granted, name), name == "windows", name == "pause:":
		return Enabled
	case name == "launch", name == "keysym", name == "ctrl-a":
		return Gated
	case name == "blocked":
		return Fixed
	}
	return Unknown
}

func (f *fakeCommands) Grant(names []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.granted = append(f.granted, names...)
}

func (f *fakeCommands) Granted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.granted)
}

func (f *fakeCommands) Revoke(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.granted)
	f.granted = slices.DeleteFunc(f.granted, func(g string) bool { return g == name })
	return len(f.granted) < n
}

func codeOf(err error) contract.Code {
	var ce *contract.Error
	if errors.As(err, &ce) {
		return ce.Code
	}
	return ""
}

func newBroker(timeout time.Duration) (*Broker, *fakeCommands, *inputgate.Gate) {
	f := &fakeCommands{}
	g := inputgate.New(nil, nil)
	return New(Options{Commands: f, Gate: g, Timeout: timeout}), f, g
}

// prompter answers every question with the next answer in answers, like `mcec consent`.
func prompter(ctx context.Context, b *Broker, answers ...Answer) <-chan Question {
	seen := make(chan Question, len(answers))
	go func() {
		last := ""
		for _, a := range answers {
			q, err := b.Next(ctx, last)
			if err != nil {
				return
			}
			last = q.ID
			seen <- q
			_ = b.Answer(q.ID, a)
		}
		<-ctx.Done()
	}()
	return seen
}

// waitPrompter waits until a prompter is blocked in Next.
func waitPrompter(t *testing.T, b *Broker) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.mu.Lock()
		n := b.waiting
		b.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no prompter waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestNeutralize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, ünïcödé 日本", "plain text, ünïcödé 日本"},
		{"line\nbreak\ttab\rcr", "line\uFFFDbreak\uFFFDtab\uFFFDcr"},
		{"esc \x1b[2J clear", "esc \uFFFD[2J clear"},
		{"bell\a del\x7f c1\u0085\u009b", "bell\uFFFD del\uFFFD c1\uFFFD\uFFFD"},
		{"rlo \u202Egnp.exe", "rlo \uFFFDgnp.exe"},
		{"bidi \u202A\u202B\u202C\u202D", "bidi \uFFFD\uFFFD\uFFFD\uFFFD"},
		{"isolates \u2066\u2067\u2068\u2069", "isolates \uFFFD\uFFFD\uFFFD\uFFFD"},
		{"zero\u200Bwidth\u200C\u200D\u2060\uFEFF", "zero\uFFFDwidth\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"lrm\u200E rlm\u200F alm\u061C", "lrm\uFFFD rlm\uFFFD alm\uFFFD"},
		{"sep\u2028para\u2029", "sep\uFFFDpara\uFFFD"},
		{"bad utf8 \xff\xfe", "bad utf8 \uFFFD\uFFFD"},
		{"", ""},
	} {
		if got := Neutralize(tc.in); got != tc.want {
			t.Errorf("Neutralize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestValidation(t *testing.T) {
	b, _, _ := newBroker(time.Second)
	ctx := context.Background()
	nine := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}
	for _, tc := range []struct {
		name   string
		names  []string
		reason string
		code   contract.Code
		detail string
	}{
		{"none", nil, "why", contract.CodeBadArguments, "1 to 8"},
		{"nine", nine, "why", contract.CodeBadArguments, "1 to 8"},
		{"no reason", []string{"launch"}, "  ", contract.CodeBadArguments, "reason is required"},
		{"long reason", []string{"launch"}, strings.Repeat("x", 301), contract.CodeBadArguments, "301 characters"},
		{"control in name", []string{"laun\x1bch"}, "why", contract.CodeBadArguments, "not a command name"},
		{"unknown", []string{"launch", "nosuch", "other"}, "why", contract.CodeBadArguments, `"nosuch", "other"`},
		{"fixed", []string{"blocked"}, "why", contract.CodeCommandDisabled, `"blocked"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.Request(ctx, tc.names, tc.reason, "s")
			if codeOf(err) != tc.code || !strings.Contains(err.Error(), tc.detail) {
				t.Errorf("err = %v, want %s containing %q", err, tc.code, tc.detail)
			}
		})
	}
	// 300 characters of multi-byte text are within the limit (characters, not bytes).
	out, err := b.Request(ctx, []string{"windows"}, strings.Repeat("é", 300), "s")
	if err != nil || len(out.AlreadyEnabled) != 1 {
		t.Errorf("300-character reason: %v %+v", err, out)
	}
}

func TestAlreadyEnabledWithoutAsking(t *testing.T) {
	b, _, _ := newBroker(time.Second)
	out, err := b.Request(context.Background(), []string{"windows", "pause:", "windows"}, "why", "s")
	if err != nil || out.Asked || len(out.Granted) != 0 || !slices.Equal(out.AlreadyEnabled, []string{"windows", "pause:"}) {
		t.Fatalf("%+v %v", out, err)
	}
}

func TestUnavailable(t *testing.T) {
	b, f, _ := newBroker(10 * time.Second)
	start := time.Now()
	_, err := b.Request(context.Background(), []string{"launch"}, "why", "s")
	if codeOf(err) != contract.CodeConsentUnavailable || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
	if len(f.granted) != 0 || b.Pending() {
		t.Error("state changed")
	}

	// A prompter that attends (an open console page) is there to ask even before it calls Next.
	leave := b.Attend()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := b.Request(ctx, []string{"launch"}, "why", "s"); !errors.Is(err, context.DeadlineExceeded) && codeOf(err) != contract.CodeConsentTimeout {
		t.Errorf("with a prompter attending: %v, want the wait to run out", err)
	}
	leave()
	leave() // once only
	if _, err := b.Request(context.Background(), []string{"launch"}, "why", "s"); codeOf(err) != contract.CodeConsentUnavailable {
		t.Errorf("after it left: %v", err)
	}
}

func TestGrantDenySticky(t *testing.T) {
	b, f, _ := newBroker(20 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := prompter(ctx, b, Grant, Deny)
	waitPrompter(t, b)

	out, err := b.Request(ctx, []string{"windows", "launch"}, "open the editor\x1b[2J", "sess-1")
	if err != nil || !out.Asked || !slices.Equal(out.Granted, []string{"launch"}) || !slices.Equal(out.AlreadyEnabled, []string{"windows"}) {
		t.Fatalf("grant: %+v %v", out, err)
	}
	q := <-seen
	if !slices.Equal(q.Commands, []string{"launch"}) || q.Reason != "open the editor\uFFFD[2J" || q.Session != "sess-1" {
		t.Errorf("question %+v", q)
	}
	if !slices.Equal(f.granted, []string{"launch"}) {
		t.Errorf("granted %v", f.granted)
	}

	_, err = b.Request(ctx, []string{"keysym"}, "type", "s")
	if codeOf(err) != contract.CodeConsentDenied {
		t.Fatalf("deny: %v", err)
	}
	// Sticky and global: another name fails at once, nobody is asked.
	start := time.Now()
	_, err = b.Request(ctx, []string{"ctrl-a"}, "again", "s")
	if codeOf(err) != contract.CodeConsentDenied || time.Since(start) > 5*time.Second {
		t.Fatalf("sticky deny: %v", err)
	}
	// Asking for nothing new still succeeds.
	if out, err := b.Request(ctx, []string{"launch"}, "again", "s"); err != nil || len(out.AlreadyEnabled) != 1 {
		t.Errorf("already enabled after deny: %+v %v", out, err)
	}
}

func TestGrantAnyLater(t *testing.T) {
	b, f, _ := newBroker(20 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prompter(ctx, b, GrantAnyLater)
	waitPrompter(t, b)
	if out, err := b.Request(ctx, []string{"launch"}, "why", "s"); err != nil || !out.Asked {
		t.Fatalf("%+v %v", out, err)
	}
	cancel() // the prompter is gone; later requests pass without it
	out, err := b.Request(context.Background(), []string{"keysym", "ctrl-a"}, "more", "s")
	if err != nil || out.Asked || !slices.Equal(out.Granted, []string{"keysym", "ctrl-a"}) {
		t.Fatalf("any later: %+v %v", out, err)
	}
	if !slices.Equal(f.granted, []string{"launch", "keysym", "ctrl-a"}) {
		t.Errorf("granted %v", f.granted)
	}
}

func TestRevoke(t *testing.T) {
	b, _, _ := newBroker(20 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := prompter(ctx, b, GrantAnyLater, Grant)
	waitPrompter(t, b)
	if _, err := b.Request(ctx, []string{"launch"}, "why", "s"); err != nil {
		t.Fatal(err)
	}
	<-seen
	if g := b.Grants(); !slices.Equal(g.Commands, []string{"launch"}) || !g.AnyLater || g.Denied {
		t.Fatalf("grants %+v", g)
	}
	if !b.Revoke("launch") || b.Revoke("launch") || b.Revoke("keysym") {
		t.Error("Revoke reports what it took back, once")
	}
	if !b.Revoke("") || b.Revoke("") {
		t.Error("Revoke(\"\") takes back grant-any-later, once")
	}
	if g := b.Grants(); len(g.Commands) != 0 || g.AnyLater {
		t.Fatalf("after revoking: %+v", g)
	}
	// Gated again, and asked about again: grant-any-later no longer answers for the operator.
	out, err := b.Request(ctx, []string{"launch"}, "again", "s")
	if err != nil || !out.Asked || !slices.Equal(out.Granted, []string{"launch"}) {
		t.Fatalf("asked again: %+v %v", out, err)
	}
}

func TestTimeoutFreezeAndGate(t *testing.T) {
	b, f, gate := newBroker(300 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var q Question
	got := make(chan struct{})
	go func() { // takes the question and never answers
		var err error
		if q, err = b.Next(ctx, ""); err == nil {
			close(got)
		}
	}()
	waitPrompter(t, b)
	done := make(chan error, 1)
	go func() {
		_, err := b.Request(ctx, []string{"launch"}, "why", "s")
		done <- err
	}()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the question never reached the prompter")
	}
	// While open: actuation frozen (what observes passes the freeze in internal/admission), a
	// second request refused, the gate held.
	if err := b.Frozen("click"); codeOf(err) != contract.CodeConsentPending || !strings.Contains(err.Error(), "click") {
		t.Errorf("click while pending: %v", err)
	}
	if _, err := b.Request(ctx, []string{"keysym"}, "also", "s"); codeOf(err) != contract.CodeConsentPending {
		t.Errorf("second request: %v", err)
	}
	hctx, hcancel := context.WithTimeout(ctx, 50*time.Millisecond)
	if rel, err := gate.Freeze(hctx); err == nil {
		rel()
		t.Error("the input gate was free while the question was open")
	}
	hcancel()

	if err := <-done; codeOf(err) != contract.CodeConsentTimeout {
		t.Fatalf("timeout: %v", err)
	}
	if err := b.Answer(q.ID, Grant); !errors.Is(err, ErrClosed) {
		t.Errorf("late answer: %v", err)
	}
	if len(f.granted) != 0 || b.Pending() || b.Frozen("click") != nil {
		t.Error("state after timeout")
	}
	hctx, hcancel = context.WithTimeout(ctx, 10*time.Second)
	defer hcancel()
	rel, err := gate.Freeze(hctx)
	if err != nil {
		t.Fatal("the gate was not released")
	}
	rel()
}

func TestAnswerValidation(t *testing.T) {
	b, _, _ := newBroker(time.Second)
	if err := b.Answer("c1", "maybe"); err == nil {
		t.Error("answer maybe accepted")
	}
	if err := b.Answer("c1", Grant); !errors.Is(err, ErrClosed) {
		t.Errorf("answer with nothing open: %v", err)
	}
}

// The narrower answers grant to the asking session alone, say their scope, and are listed and
// revoked by scope and session.
func TestScopedAnswers(t *testing.T) {
	b, f, _ := newBroker(20 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prompter(ctx, b, GrantOnce, GrantSession, Grant)
	waitPrompter(t, b)
	for _, c := range []struct {
		session string
		names   []string
		scope   Scope
	}{
		{"s-1", []string{"launch"}, ScopeOnce},
		{"s-2", []string{"keysym"}, ScopeSession},
		{"s-3", []string{"ctrl-a"}, ScopeProcess},
	} {
		out, err := b.Request(ctx, c.names, "why", c.session)
		if err != nil || out.Scope != c.scope || !slices.Equal(out.Granted, c.names) {
			t.Fatalf("%s: %+v %v, want scope %s", c.session, out, err, c.scope)
		}
	}
	if !slices.Equal(f.granted, []string{"ctrl-a"}) {
		t.Errorf("granted for every session: %v, want only the process grant", f.granted)
	}
	g := b.Grants()
	want := []ScopedGrant{{"launch", ScopeOnce, "s-1"}, {"keysym", ScopeSession, "s-2"}}
	if !slices.Equal(g.Scoped, want) {
		t.Errorf("scoped grants %v, want %v", g.Scoped, want)
	}
	if !b.RevokeFor(ScopeSession, "s-2", "keysym") || b.RevokeFor(ScopeSession, "s-2", "keysym") || b.RevokeFor(ScopeOnce, "s-9", "launch") {
		t.Error("RevokeFor reports what it took back, for that session and scope only")
	}
	if !b.RevokeFor(ScopeProcess, "", "ctrl-a") || len(b.Grants().Commands) != 0 {
		t.Error("RevokeFor(process) is Revoke")
	}
}
