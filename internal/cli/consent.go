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

// consentLoop shows each question and sends back the operator's answer. It returns nil on
// Ctrl-C (ctx) or at the end of in: a prompter that cannot read answers must not keep claiming
// to be there.
func consentLoop(ctx context.Context, path string, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines := make(chan string)
	go func() {
		defer cancel()
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	fmt.Fprintf(out, "mcec consent: answering for the server at %s; waiting for requests (Ctrl-C to stop)\n", path)
	last := ""
	for {
		var q consent.Question
		err := control.Call(ctx, path, consent.NextOp, consent.NextArgs{After: last}, &q)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		last = q.ID
		showQuestion(out, q)
		a, ok := readAnswer(ctx, lines, out)
		if !ok {
			fmt.Fprintln(out, "\nno answer given; the request stays open until it times out")
			return nil
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

// readAnswer asks until the operator types y, a or n; false when input ends or ctx does.
func readAnswer(ctx context.Context, lines <-chan string, out io.Writer) (consent.Answer, bool) {
	for {
		fmt.Fprint(out, "grant? [y] yes  [a] yes, and grant any later request without asking  [n] no (denies every later request): ")
		select {
		case <-ctx.Done():
			return "", false
		case l := <-lines:
			switch strings.ToLower(strings.TrimSpace(l)) {
			case "y", "yes":
				return consent.Grant, true
			case "a":
				return consent.GrantAnyLater, true
			case "n", "no":
				return consent.Deny, true
			}
			fmt.Fprintln(out, "please answer y, a or n")
		}
	}
}
