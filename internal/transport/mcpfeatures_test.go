package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/progress"
	"github.com/mcec/mcec/internal/session"
)

// finishedCalls hands every finished call to the test.
type finishedCalls chan dispatch.Finished

// entered tells the test that a call reached the "wait" tool.
var entered = make(chan struct{}, 16)

func (f finishedCalls) CallFinished(_ context.Context, c dispatch.Finished) { f <- c }

// waitArgs are the arguments of the test's "wait" tool.
type waitArgs struct {
	Seconds int `json:"seconds"`
}

// waitingDispatcher serves "wait", which waits until its context ends or seconds pass,
// reporting its progress as tools do. Tests using it do not run in parallel (entered is
// shared).
func waitingDispatcher(t *testing.T) (*dispatch.Dispatcher, finishedCalls) {
	c := catalog.New()
	c.Add(catalog.Define(catalog.Spec[waitArgs, map[string]int]{Name: "wait", Description: "wait",
		Run: func(ctx context.Context, call *catalog.Call, in *waitArgs, resp *catalog.Response) (*map[string]int, error) {
			budget := time.Duration(in.Seconds) * time.Second
			ctx, stop := progress.Track(ctx, "waiting for the test", budget)
			defer stop()
			progress.Seen(ctx, "last seen: nothing yet")
			select {
			case entered <- struct{}{}:
			default:
			}
			select {
			case <-time.After(budget):
				return &map[string]int{"waited": in.Seconds}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}}))
	d := dispatch.New(c, session.NewStore(session.Options{Root: t.TempDir()}), nil)
	done := make(finishedCalls, 16)
	d.SetObserver(done)
	return d, done
}

// connectInMemory connects a Go SDK client to NewMCPServer over in-memory transports.
func connectInMemory(t *testing.T, d *dispatch.Dispatcher, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	srv := NewMCPServer(d, ServerInfo{Name: "mcec", Transport: "stdio"})
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Every tool advertises an outputSchema, and every result carries the envelope as
// structuredContent too: the same JSON as its text block, valid against that schema, whether
// the result is small, large (pre-encoded) or a failure.
func TestStructuredContentIsTheEnvelope(t *testing.T) {
	d := testDispatcher(t, nil)
	cs := connectInMemory(t, d, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.OutputSchema == nil {
			t.Errorf("%s has no outputSchema", tool.Name)
		}
	}
	echo, _ := d.Catalog().Lookup("echo")
	for _, args := range []map[string]any{
		{"text": "small"},
		{"text": strings.Repeat("<big & long>", 1000)}, // over preEncodeMin
		{"text": "x", "image": true},
		{"text": "gone", "fail": true},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		env := contracttest.Check(t, []byte(text))
		if res.IsError == env.OK() {
			t.Errorf("isError %v for ok %v", res.IsError, env.OK())
		}
		var fromText, structured any
		if err := json.Unmarshal([]byte(text), &fromText); err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &structured); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fromText, structured) {
			t.Errorf("structuredContent %.200s differs from the text block %.200s", raw, text)
		}
		if err := echo.CheckOutput(raw); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// A client that gives a progress token hears, about every second, what the call waits for,
// for how long of its budget, and what it last saw.
func TestProgressNotifications(t *testing.T) {
	d, _ := waitingDispatcher(t)
	var (
		mu  sync.Mutex
		got []*mcp.ProgressNotificationParams
	)
	cs := connectInMemory(t, d, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	params := &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"seconds": 4}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("wait: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 {
		t.Fatalf("%d progress notifications during a 4 s call, want 2 or more", len(got))
	}
	for i, p := range got {
		if p.ProgressToken != "tok-1" || p.Total != 4 ||
			!strings.HasPrefix(p.Message, "waiting for the test: ") || !strings.HasSuffix(p.Message, " of 4.0 s; last seen: nothing yet") {
			t.Errorf("notification %d: %+v", i, p)
		}
		if i > 0 && p.Progress <= got[i-1].Progress {
			t.Errorf("progress did not grow: %v then %v", got[i-1].Progress, p.Progress)
		}
	}

	// Without a token, nothing is sent. (The client may handle the first call's last
	// notification after that call returned: it belongs to tok-1 and its 4 s.)
	got = nil
	mu.Unlock()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"seconds": 2}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for _, p := range got {
		if p.ProgressToken != "tok-1" || p.Total != 4 {
			t.Errorf("a progress notification without a progress token: %+v", p)
		}
	}
}

// expectCancelled waits for the finished call and checks that it failed call-cancelled soon
// after the cancellation, so its session and its trace say so.
func expectCancelled(t *testing.T, done finishedCalls, cancelledAt time.Time) {
	t.Helper()
	select {
	case f := <-done:
		e := f.Outcome.Envelope.Err()
		if e == nil || e.Code != contract.CodeCallCancelled || e.Category != contract.Internal {
			t.Fatalf("the cancelled call ended with %+v", f.Outcome.Envelope)
		}
		if late := time.Since(cancelledAt); late > 2*time.Second {
			t.Errorf("the call ended %v after it was cancelled", late)
		}
		if last, _ := f.Session.Status().LastError.(*contract.Error); last == nil || last.Code != contract.CodeCallCancelled {
			t.Errorf("the session's last error is %+v", f.Session.Status().LastError)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call is still running")
	}
}

// notifications/cancelled ends the call at once, as call-cancelled.
func TestCancelledCallEnds(t *testing.T) {
	d, done := waitingDispatcher(t)
	cs := connectInMemory(t, d, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	drain(entered) // before the call: drained after it, its own signal could be lost
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"seconds": 30}})
		errc <- err
	}()
	awaitEntered(t, errc)
	cancel() // the SDK client sends notifications/cancelled
	at := time.Now()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("the client's call did not fail when cancelled")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client's call did not return when cancelled")
	}
	expectCancelled(t, done, at)
}

// An HTTP client that goes away ends its MCP call too.
func TestHTTPClientGoneEndsCall(t *testing.T) {
	d, done := waitingDispatcher(t)
	srv := serveHTTP(t, d, "")
	post := func(ctx context.Context, session, body string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		return http.DefaultClient.Do(req)
	}
	ctx := context.Background()
	resp, err := post(ctx, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("no session id: %v", resp.Status)
	}
	if resp, err = post(ctx, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	drain(entered)
	callCtx, hangUp := context.WithCancel(ctx)
	defer hangUp()
	errc := make(chan error, 1)
	go func() {
		resp, err := post(callCtx, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"seconds":30}}}`)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body) // the answer never comes: the body is cut
			resp.Body.Close()
		}
		errc <- err
	}()
	awaitEntered(t, errc)
	hangUp()
	at := time.Now()
	select {
	case <-errc:
	case <-time.After(10 * time.Second):
		t.Fatal("the client's request did not end when it hung up")
	}
	expectCancelled(t, done, at)
}

// awaitEntered waits until a call reached the "wait" tool, failing the test if the call
// ended (errc) or never got there.
func awaitEntered(t *testing.T, errc <-chan error) {
	t.Helper()
	select {
	case <-entered:
	case err := <-errc:
		t.Fatalf("the call ended before it reached the tool: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not reach the tool in 20 s")
	}
}

// drain empties c of what earlier tests left.
func drain(c chan struct{}) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// artifactDispatcher serves "save", which saves a capture-like artifact in the call's session
// and answers with a link to it, and "echo"; sessions come from the returned store.
func artifactDispatcher(t *testing.T) (*dispatch.Dispatcher, *session.Store) {
	c := catalog.New()
	c.Add(catalog.Define(catalog.Spec[echoArgs, map[string]string]{Name: "save", Description: "save",
		Run: func(ctx context.Context, call *catalog.Call, in *echoArgs, resp *catalog.Response) (*map[string]string, error) {
			path, err := call.Session.SaveCapture([]byte("\x89PNG " + in.Text))
			if err != nil {
				return nil, err
			}
			uri, err := call.Session.ArtifactURI(path)
			if err != nil {
				return nil, err
			}
			resp.Link = &catalog.Link{URI: uri, Name: "capture.png", MIMEType: "image/png", Size: int64(len(in.Text) + 5)}
			return &map[string]string{"uri": uri}, nil
		}}))
	store := session.NewStore(session.Options{Root: t.TempDir()})
	return dispatch.New(c, store, nil), store
}

// A client reads the artifacts of the sessions it called in through resources/list and
// resources/read; another client cannot, even with the URI.
func TestArtifactsAreResources(t *testing.T) {
	d, store := artifactDispatcher(t)
	mine, theirs := store.Start(), store.Start()
	a, b := connectInMemory(t, d, nil), connectInMemory(t, d, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "save", Arguments: map[string]any{"text": "pixels", "sessionId": mine.ID()}})
	if err != nil || res.IsError {
		t.Fatalf("save: %v %+v", err, res)
	}
	link, ok := res.Content[len(res.Content)-1].(*mcp.ResourceLink)
	if !ok || !strings.HasPrefix(link.URI, "mcec://session/"+mine.ID()+"/capture-") || link.MIMEType != "image/png" {
		t.Fatalf("last block %#v, want a resource_link to the capture", res.Content[len(res.Content)-1])
	}
	listed, err := a.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(listed.Resources, func(r *mcp.Resource) bool { return r.URI == link.URI && r.Size == 11 }) {
		t.Errorf("resources/list %+v lacks %s", listed.Resources, link.URI)
	}
	got, err := a.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI})
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Contents[0]; string(c.Blob) != "\x89PNG pixels" || c.MIMEType != "image/png" {
		t.Errorf("read %q %s", c.Blob, c.MIMEType)
	}

	// The other client works in its own session: it sees none of the first one's artifacts.
	if _, err := b.CallTool(ctx, &mcp.CallToolParams{Name: "save", Arguments: map[string]any{"text": "x", "sessionId": theirs.ID()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI}); err == nil ||
		!strings.Contains(err.Error(), "readable only by the client that made them") {
		t.Errorf("another client read %s: %v", link.URI, err)
	}
	listed, err = b.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range listed.Resources {
		if !strings.HasPrefix(r.URI, "mcec://session/"+theirs.ID()+"/") {
			t.Errorf("the other client lists %s", r.URI)
		}
	}

	// Nothing outside the artifact directory, nothing that is not there.
	dir, _ := mine.ArtifactDir()
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "secret"), []byte("no"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secret", filepath.Join(dir, "link.png")); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{"mcec://session/" + mine.ID() + "/../secret", "mcec://session/" + mine.ID() + "/link.png",
		"mcec://session/" + mine.ID() + "/nothing.png", "file:///etc/passwd"} {
		if r, err := a.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s: %q", uri, r.Contents[0].Blob)
		}
	}
}
