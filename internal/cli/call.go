package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/control"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/tools"
)

// defaultServer is where `mcec serve` listens by default; `mcec call` uses it when it answers.
const defaultServer = "http://127.0.0.1:5151"

type callOptions struct {
	token  string
	server string
	local  bool
	pretty bool
}

func newCallCmd(g *globalOptions, st *streams) *cobra.Command {
	o := &callOptions{}
	cmd := &cobra.Command{
		Use:   "call TOOL [JSON]",
		Short: "Call one tool and print its envelope (exit 0 if ok, 1 if not, 2 on usage error)",
		Long: `Call one tool with a JSON arguments object and print the envelope.

Where the call runs: --server URL (or MCEC_SERVER) sends it to a running mcec serve; otherwise,
when a server answers on ` + defaultServer + ` it is used; otherwise (or with --local or
--headless) mcec runs in-process, on its own private desktop when DISPLAY is unset.

The bearer token: --token, else MCEC_TOKEN, else (for a loopback server) the token file the
running mcec serve wrote in this user's runtime directory.`,
		Example: `  mcec call windows
  mcec call query '{"process":"gtk3-widget-factory","maxDepth":3}'
  mcec call capture '{"window":"Factory","pathOnly":true}'`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			g.quietByDefault(cmd) // one call from a shell wants its envelope
			return callRun(cmd.Context(), g, st, o, args)
		},
	}
	cmd.Flags().StringVar(&o.server, "server", envOr("MCEC_SERVER", ""), "URL of a running mcec serve (env MCEC_SERVER)")
	cmd.Flags().StringVar(&o.token, "token", "", "bearer token for the server (env MCEC_TOKEN; default: the token file a local mcec serve wrote)")
	cmd.Flags().BoolVar(&o.local, "local", false, "run in-process even when a server answers on the default address")
	cmd.Flags().BoolVar(&o.pretty, "pretty", false, "indent the envelope")
	return cmd
}

func callRun(ctx context.Context, g *globalOptions, st *streams, o *callOptions, args []string) error {
	tool, body := args[0], []byte("{}")
	if len(args) == 2 {
		body = []byte(strings.TrimSpace(args[1]))
		if !json.Valid(body) {
			return usageError{fmt.Errorf("arguments %q are not valid JSON", args[1])}
		}
	}
	if err := checkToolName(tool); err != nil {
		return err
	}
	server := o.server
	if server == "" && !o.local && !g.headless && serverAnswers(defaultServer) {
		server = defaultServer
	}
	var (
		envJSON []byte
		err     error
	)
	if server != "" {
		explicit := o.token
		if explicit == "" {
			explicit = os.Getenv(envToken)
		}
		envJSON, err = callServerAuth(ctx, server, tokenFor(server, explicit), tool, body)
	} else {
		envJSON, err = callLocal(ctx, g, st, tool, body)
	}
	if err != nil {
		return err
	}
	var env contract.Envelope
	if err := json.Unmarshal(envJSON, &env); err != nil {
		return fmt.Errorf("the answer is not an envelope: %w", err)
	}
	if o.pretty {
		var buf bytes.Buffer
		if json.Indent(&buf, envJSON, "", "  ") == nil {
			envJSON = buf.Bytes()
		}
	}
	fmt.Fprintln(st.out, string(bytes.TrimSpace(envJSON)))
	if !env.OK() {
		return exitError{exitFailure}
	}
	return nil
}

func callLocal(ctx context.Context, g *globalOptions, st *streams, tool string, body []byte) ([]byte, error) {
	d, _, err := g.startDaemon(ctx, st.err)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	out, err := d.Dispatcher.Call(dispatch.WithTransport(ctx, "cli"), tool, body)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out.Envelope)
}

// callServer calls a running server with the token from MCEC_TOKEN, else its token file.
func callServer(ctx context.Context, server, tool string, body []byte) ([]byte, error) {
	return callServerAuth(ctx, server, tokenFor(server, os.Getenv(envToken)), tool, body)
}

// callServerAuth posts one call to the server's façade.
func callServerAuth(ctx context.Context, server, token, tool string, body []byte) ([]byte, error) {
	url := strings.TrimRight(server, "/") + "/v1/tools/" + tool
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, usageError{err}
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return b, nil
	case resp.StatusCode == http.StatusUnauthorized:
		hint := "the token presented is not this server's"
		if token == "" {
			hint = "no token was found: pass --token or MCEC_TOKEN (an mcec serve of this user on loopback publishes its own in " +
				control.Dir() + ")"
		}
		return nil, fmt.Errorf("%s: %s; %s", resp.Status, bytes.TrimSpace(b), hint)
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusBadRequest:
		return nil, usageError{fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(b))}
	default:
		return nil, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(b))
	}
}

// checkToolName refuses an unknown tool before any desktop is started or server is asked.
func checkToolName(name string) error {
	cat := catalog.New()
	tools.Register(cat, &tools.Env{}) // descriptors only: no handler runs
	if _, ok := cat.Lookup(name); ok {
		return nil
	}
	return usageError{fmt.Errorf("unknown tool %q; tools: %s", name, strings.Join(cat.Names(), ", "))}
}

// serverAnswers reports whether something listens at the server's address (a quick dial).
func serverAnswers(server string) bool {
	host := strings.TrimPrefix(strings.TrimPrefix(server, "http://"), "https://")
	c, err := net.DialTimeout("tcp", host, 300*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
