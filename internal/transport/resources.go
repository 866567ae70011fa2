package transport

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/internal/session"
)

// artifactResources serves session artifacts (captures, recordings, the trace, the failure
// summary, everything in a session's artifact directory) as MCP resources, to the client that
// made them: an MCP connection may list and read the artifacts of the mcec sessions it has
// called tools in, and no others, even when it knows another session's URI. The operator reads
// them on disk. One per MCP server, which serves one connection (stdio, or one HTTP session).
type artifactResources struct {
	mu    sync.Mutex
	known map[string]*session.Session // by session id: the sessions this client called in
}

// maxResourceBytes bounds what resources/read returns in one message; a larger artifact (a long
// recording) is refused with its path, never sent by accident.
const maxResourceBytes = 16 << 20

// maxListed bounds a resources/list answer.
const maxListed = 1000

// install adds the template that routes resources/read to a, and has resources/list answer
// with this client's artifacts.
func (a *artifactResources) install(srv *mcp.Server) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: session.ArtifactURIPrefix + "{sessionId}/{+file}",
		Name:        "session-artifact",
		Title:       "A file in one of your sessions' artifact directories",
		Description: "Captures, recordings, the call trace (tool-calls.jsonl), session.json, failure-summary.md of the sessions you called tools in. Listed by resources/list.",
	}, a.read)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "resources/list" {
				return a.list()
			}
			return next(ctx, method, req)
		}
	})
}

// note remembers that the client called a tool in s.
func (a *artifactResources) note(s *session.Session) {
	if s == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.known == nil {
		a.known = map[string]*session.Session{}
	}
	a.known[s.ID()] = s
}

func (a *artifactResources) sessions() []*session.Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]*session.Session, 0, len(a.known))
	for _, s := range a.known {
		out = append(out, s)
	}
	slices.SortFunc(out, func(x, y *session.Session) int { return x.Started().Compare(y.Started()) })
	return out
}

// list names every file in the artifact directories of this client's sessions.
func (a *artifactResources) list() (*mcp.ListResourcesResult, error) {
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	for _, s := range a.sessions() {
		dir, err := s.ArtifactDir()
		if err != nil {
			continue
		}
		_ = fs.WalkDir(os.DirFS(dir), ".", func(p string, e fs.DirEntry, err error) error {
			if err != nil || len(res.Resources) >= maxListed {
				return fs.SkipDir
			}
			if strings.HasPrefix(e.Name(), ".") && p != "." { // temporary files of atomic writes
				if e.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if !e.Type().IsRegular() {
				return nil
			}
			info, err := e.Info()
			if err != nil {
				return nil
			}
			res.Resources = append(res.Resources, &mcp.Resource{
				URI: session.ArtifactURIPrefix + s.ID() + "/" + p, Name: p, MIMEType: artifactMIME(p), Size: info.Size(),
				Description: "session " + s.ID(),
			})
			return nil
		})
	}
	return res, nil
}

// read answers resources/read for an artifact URI of one of this client's sessions.
func (a *artifactResources) read(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, rel, err := session.ParseArtifactURI(uri)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	a.mu.Lock()
	s := a.known[id]
	a.mu.Unlock()
	if s == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"%s: session %s is not one this client called tools in; a session's artifacts are readable only by the client that made them", uri, id)}
	}
	dir, err := s.ArtifactDir()
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	// The root keeps the read inside the directory, symbolic links included.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if info.Size() > maxResourceBytes {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"%s is %d bytes, more than one answer carries (%d): read it on the mcec host, in the session's artifact directory (session-status artifactDir)",
			uri, info.Size(), maxResourceBytes)}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxResourceBytes+1))
	if err != nil {
		return nil, err
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: artifactMIME(rel)}
	if strings.HasPrefix(c.MIMEType, "text/") || strings.HasPrefix(c.MIMEType, "application/json") {
		c.Text = string(data)
	} else {
		c.Blob = data
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}

// artifactMIME is the media type of an artifact, by the extensions mcec writes (fixed here,
// not read from the host's mime.types).
func artifactMIME(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".png":
		return "image/png"
	case ".gif":
		return "image/gif"
	case ".json":
		return "application/json"
	case ".jsonl":
		return "application/jsonl"
	case ".md":
		return "text/markdown"
	case ".txt", ".log":
		return "text/plain"
	}
	return "application/octet-stream"
}
