package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/consent"
	"github.com/mcec/mcec/internal/control"
)

func newConsentCmd(st *streams) *cobra.Command {
	var socket string
	cmd := &cobra.Command{
		Use:   "consent",
		Short: "Answer agents' requests for gated commands (request-command-access) on this terminal",
		Long: `Connect to a running mcec's control socket and wait for consent requests. Each request shows the
commands asked for, the agent's reason (control and bidi characters replaced) and the session that
asked; answer y (grant), a (grant, and let every later request pass without asking) or n (deny: every
later request fails at once). Anything else asks again. Grants live in the server's memory only.

While this command waits, consent is available; without it request-command-access fails
consent-unavailable at once. It runs until Ctrl-C or the end of its input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := control.Find(socket)
			if err != nil {
				return err
			}
			return consentLoop(cmd.Context(), path, st.in, st.out)
		},
	}
	cmd.Flags().StringVar(&socket, "socket", "", "the server's control socket (default: $"+control.EnvSocket+", or the only running server's)")
	return cmd
}

// typedLine is a line the operator typed, with when it was read.
type typedLine struct {
	text string
	at   time.Time
}

// consentLoop shows each question and sends back the operator's answer. It returns nil on
// Ctrl-C (ctx) or at the end of in: a prompter that cannot read answers must not keep claiming
// to be there. A question answered elsewhere (the on-screen dialog) or timed out is taken down,
// and lines typed before a question was shown never answer it.
func consentLoop(ctx context.Context, path string, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The reader never blocks on the loop (a generous buffer), so each line is stamped when it
	// was typed, not when the loop got round to it.
	lines := make(chan typedLine, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- typedLine{sc.Text(), time.Now()}:
			case <-ctx.Done():
				return
			default: // 64 unread lines: nobody is asking; drop it
			}
		}
	}()
	fmt.Fprintf(out, "mcec consent: answering for the server at %s; waiting for requests (Ctrl-C to stop)\n", path)
	last := ""
	for {
		q, err := nextQuestion(ctx, path, last, lines)
		if err != nil || q == nil {
			return err
		}
		last = q.ID
		showQuestion(out, *q)
		shown := time.Now()
		qctx, qcancel := context.WithCancel(ctx)
		closed := make(chan struct{})
		go func() {
			if control.Call(qctx, path, consent.WaitClosedOp, consent.WaitClosedArgs{ID: q.ID}, nil) == nil {
				close(closed)
			}
		}()
		a, outcome := readAnswer(ctx, lines, closed, shown, out)
		qcancel()
		switch outcome {
		case inputEnded:
			fmt.Fprintln(out, "\nno answer given; the request stays open until it times out")
			return nil
		case closedElsewhere:
			fmt.Fprintf(out, "\nrequest %s was answered elsewhere or timed out; nothing to do here\n", consent.Neutralize(q.ID))
			continue
		}
		if err := control.Call(ctx, path, consent.AnswerOp, consent.AnswerArgs{ID: q.ID, Answer: a}, nil); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			fmt.Fprintf(out, "not applied: %v\n", err)
			continue
		}
		fmt.Fprintf(out, "answered %s: %s\n", q.ID, a)
	}
}

// showQuestion prints a question. The server neutralized its text already; the names and the
// session are neutralized again here so a terminal is never handed control characters.
func showQuestion(out io.Writer, q consent.Question) {
	names := make([]string, len(q.Commands))
	for i, n := range q.Commands {
		names[i] = consent.Neutralize(n)
	}
	left := time.Until(q.Deadline).Round(time.Second)
	fmt.Fprintf(out, "\n=== mcec consent request %s at %s ===\n", consent.Neutralize(q.ID), q.Asked.Local().Format("15:04:05"))
	if q.Session != "" {
		fmt.Fprintf(out, "session:  %s\n", consent.Neutralize(q.Session))
	}
	fmt.Fprintf(out, "commands: %s\n", strings.Join(names, ", "))
	fmt.Fprintf(out, "reason:   %s\n", consent.Neutralize(q.Reason))
	fmt.Fprintf(out, "answer within %s (until %s); until then the agent can only observe.\n", left, q.Deadline.Local().Format("15:04:05"))
}

// nextQuestion waits for the next open question other than last. Lines typed meanwhile answer
// nothing and are dropped; the end of input ends the wait (nil, nil), as Ctrl-C does.
func nextQuestion(ctx context.Context, path, last string, lines <-chan typedLine) (*consent.Question, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case _, ok := <-lines:
				if !ok {
					cancel()
					return
				}
			case <-stop:
				return
			}
		}
	}()
	var q consent.Question
	err := control.Call(wctx, path, consent.NextOp, consent.NextArgs{After: last}, &q)
	close(stop)
	<-stopped // from here on only readAnswer takes lines
	if wctx.Err() != nil {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &q, nil
}

// How readAnswer ended.
const (
	answered = iota
	inputEnded
	closedElsewhere
)

// readAnswer asks until the operator types y, a or n after the question was shown; it stops
// when input ends, ctx does, or the question is closed elsewhere.
func readAnswer(ctx context.Context, lines <-chan typedLine, closed <-chan struct{}, shown time.Time, out io.Writer) (consent.Answer, int) {
	const prompt = "grant? [o] once (the session's next call that needs it)  [s] for this session  [y] for every session until mcec exits  " +
		"[a] yes, and grant any later request without asking  [n] no (denies every later request): "
	fmt.Fprint(out, prompt)
	for {
		var l typedLine
		var ok bool
		select {
		case <-ctx.Done():
			return "", inputEnded
		case <-closed:
			return "", closedElsewhere
		case l, ok = <-lines:
			if !ok {
				return "", inputEnded
			}
		}
		if l.at.Before(shown) {
			continue // typed before this question was on screen: not an answer to it
		}
		switch strings.ToLower(strings.TrimSpace(l.text)) {
		case "o", "once":
			return consent.GrantOnce, answered
		case "s", "session":
			return consent.GrantSession, answered
		case "y", "yes":
			return consent.Grant, answered
		case "a":
			return consent.GrantAnyLater, answered
		case "n", "no":
			return consent.Deny, answered
		}
		fmt.Fprintln(out, "please answer o, s, y, a or n")
		fmt.Fprint(out, prompt)
	}
}
