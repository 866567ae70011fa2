package tools_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/tools"
	"github.com/mcec/mcec/internal/transport"
)

// The MCP annotations every tool must carry in tools/list. Clients use them to decide what to
// confirm with the user, so they must describe behaviour:
//   - readOnly: the call only observes. Writing its own evidence (artifacts, a file the caller
//     names) and restoring a minimized window it has to see (warning minimized-window) count as
//     observing; changing input, focus, windows, the clipboard, processes or server-wide state
//     does not.
//   - destructive: the call can undo or replace something the user or another caller had
//     (typed text, a clicked button's effect, the clipboard, an unfetched recording).
//   - idempotent: repeating the call with the same arguments has no further effect.
//   - openWorld: the call reaches the desktop's applications, not only mcec's own state.
var wantAnnotations = map[string]struct{ readOnly, destructive, idempotent, openWorld bool }{
	"windows":  {readOnly: true, idempotent: true, openWorld: true},
	"query":    {readOnly: true, idempotent: true, openWorld: true},
	"find":     {readOnly: true, idempotent: true, openWorld: true},
	"wait-for": {readOnly: true, idempotent: true, openWorld: true},
	// Each call writes a new artifact, so not idempotent.
	"capture":  {readOnly: true, openWorld: true},
	"get-text": {readOnly: true, idempotent: true, openWorld: true},
	// start occupies the server's one recording slot and discards an unfetched recording.
	"record":   {destructive: true, openWorld: true},
	"displays": {readOnly: true, idempotent: true},
	"invoke":   {destructive: true, openWorld: true},
	"click":    {destructive: true, openWorld: true},
	"drag":     {destructive: true, openWorld: true},
	// With at it clicks, so not idempotent; foregrounding alone changes nothing irreversibly.
	"focus": {openWorld: true},
	// Every action sets an absolute state (position, size, minimized, foreground).
	"window": {idempotent: true, openWorld: true},
	"launch": {destructive: true, openWorld: true},
	// set replaces what the user had copied; get asks the application that owns the selection.
	"clipboard": {destructive: true, openWorld: true},
	// Any raw command, including typing and the acting tools by name.
	"send_command": {destructive: true, openWorld: true},
	// Changes the server's gates (in memory), nothing on the desktop; asking again asks again.
	"request-command-access": {},
	"session-start":          {},
	"session-status":         {readOnly: true, idempotent: true},
	"session-end":            {idempotent: true},
	// Starts a separate mcec with its own desktop and a listener other clients can reach.
	"provision-session": {openWorld: true},
	// Stops that instance: whatever ran in it is gone.
	"end-session": {destructive: true, idempotent: true},
}

// maxDescription keeps tools/list descriptions short: they are sent to the model on every turn.
const maxDescription = 600

// TestAnnotations checks tools/list as a client sees it: every tool is in the table above with
// exactly its annotations, a title and a short description.
func TestAnnotations(t *testing.T) {
	cat := catalog.New()
	tools.Register(cat, &tools.Env{})
	srv := transport.NewMCPServer(dispatch.New(cat, nil, nil), transport.ServerInfo{Name: "mcec", Version: "test"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "annotations", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}

	seen := map[string]bool{}
	for _, tool := range list.Tools {
		seen[tool.Name] = true
		want, ok := wantAnnotations[tool.Name]
		if !ok {
			t.Errorf("%s is not in wantAnnotations: add it with the annotations that match what it does", tool.Name)
			continue
		}
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s has no annotations", tool.Name)
			continue
		}
		got := struct{ readOnly, destructive, idempotent, openWorld bool }{
			a.ReadOnlyHint, a.DestructiveHint != nil && *a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint != nil && *a.OpenWorldHint,
		}
		// MCP defaults a missing destructiveHint and openWorldHint to true: both must be explicit.
		if a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: destructiveHint and openWorldHint must be set explicitly", tool.Name)
		}
		if got != want {
			t.Errorf("%s annotations = %+v, want %+v", tool.Name, got, want)
		}
		if tool.Title == "" || a.Title != tool.Title {
			t.Errorf("%s: title %q, annotation title %q", tool.Name, tool.Title, a.Title)
		}
		if n := len(tool.Description); n == 0 || n > maxDescription {
			t.Errorf("%s: description is %d characters, want 1..%d", tool.Name, n, maxDescription)
		}
	}
	for name := range wantAnnotations {
		if !seen[name] {
			t.Errorf("wantAnnotations lists %s, which tools/list does not have", name)
		}
	}
}
