package consent

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
)

// clientSays is a client prompter that answers a, ok after noting the question.
func clientSays(a Answer, ok bool, asked chan<- Question) ClientPrompter {
	return func(ctx context.Context, q Question) (Answer, bool) {
		asked <- q
		return a, ok
	}
}

// With the operator's leave, the agent's client answers when no prompter runs; its grant covers
// only what was asked, even when it says grant-any-later; its deny is as final as the
// operator's.
func TestClientAnswers(t *testing.T) {
	f := &fakeCommands{}
	b := New(Options{Commands: f, Timeout: 10 * time.Second, ViaClient: true})
	asked := make(chan Question, 4)
	ctx := WithClientPrompter(context.Background(), clientSays(GrantAnyLater, true, asked))
	out, err := b.Request(ctx, []string{"launch"}, "open the editor", "s1")
	if err != nil || !out.Asked || out.AnsweredBy != "client" || !slices.Equal(out.Granted, []string{"launch"}) {
		t.Fatalf("%+v %v", out, err)
	}
	q := <-asked
	if msg := ClientMessage(q); !strings.Contains(msg, "lower trust") || !strings.Contains(msg, "launch") || !strings.Contains(msg, "open the editor") {
		t.Errorf("client message %q", msg)
	}
	// Not grant-any-later: the next request is asked again.
	ctx = WithClientPrompter(context.Background(), clientSays(Deny, true, asked))
	if _, err := b.Request(ctx, []string{"keysym"}, "type", "s1"); codeOf(err) != contract.CodeConsentDenied {
		t.Fatalf("client deny: %v", err)
	}
	<-asked
	if _, err := b.Request(ctx, []string{"ctrl-a"}, "again", "s1"); codeOf(err) != contract.CodeConsentDenied || len(asked) != 0 {
		t.Fatalf("sticky after a client's deny: %v, asked %d", err, len(asked))
	}
}

// Without the operator's leave the client is never asked; a dismissed question waits for the
// operator until the timeout.
func TestClientOnlyWithLeave(t *testing.T) {
	asked := make(chan Question, 2)
	b := New(Options{Commands: &fakeCommands{}, Timeout: time.Second})
	ctx := WithClientPrompter(context.Background(), clientSays(Grant, true, asked))
	if _, err := b.Request(ctx, []string{"launch"}, "why", "s"); codeOf(err) != contract.CodeConsentUnavailable || len(asked) != 0 {
		t.Fatalf("without leave: %v, asked %d", err, len(asked))
	}
	b = New(Options{Commands: &fakeCommands{}, Timeout: 300 * time.Millisecond, ViaClient: true})
	ctx = WithClientPrompter(context.Background(), clientSays("", false, asked))
	if _, err := b.Request(ctx, []string{"launch"}, "why", "s"); codeOf(err) != contract.CodeConsentTimeout {
		t.Fatalf("dismissed: %v", err)
	}
}

// The operator's prompter may answer first; the operator's answer is then the one applied.
func TestOperatorBeforeClient(t *testing.T) {
	b, _, _ := newBroker(10 * time.Second)
	b.opts.ViaClient = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prompter(ctx, b, Grant)
	waitPrompter(t, b)
	slow := func(ctx context.Context, q Question) (Answer, bool) {
		<-ctx.Done() // the client's human never answers; the question ends with the request
		return "", false
	}
	out, err := b.Request(WithClientPrompter(ctx, slow), []string{"launch"}, "why", "s")
	if err != nil || out.AnsweredBy != "operator" {
		t.Fatalf("%+v %v", out, err)
	}
}
