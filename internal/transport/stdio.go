package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio limits.
const (
	// MaxLineBytes bounds one JSON-RPC line; a longer line is answered with an error and skipped.
	MaxLineBytes = 8 << 20
	// MaxInFlight bounds requests being served at once; reading pauses until one finishes
	// (backpressure instead of an unbounded queue).
	MaxInFlight = 16
)

// Stdio is MCP over newline-delimited JSON-RPC on a reader and a writer. Unlike the SDK's own
// stdio transport it survives a malformed line: the line gets a JSON-RPC error response
// (parse error, or invalid request) and the next line is served.
type Stdio struct {
	In  io.Reader
	Out io.Writer

	stash *wireStash // set by Serve

	mu   sync.Mutex
	conn *stdioConn // the connection Connect made, for WaitAnswered
}

// WaitAnswered waits until every request read so far has had its response written, or ctx ends.
// A shutdown calls it between ending the calls in flight and closing the connection, so their
// answers reach the client.
func (s *Stdio) WaitAnswered(ctx context.Context) {
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil {
		return
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for len(c.slots) > 0 {
		select {
		case <-ctx.Done():
			return
		case <-c.done:
			return
		case <-tick.C:
		}
	}
}

// Serve runs srv on s until the client goes away or ctx ends. Unlike srv.Run(ctx, s), large
// tools/call results reach the output line without a last pass of the SDK's JSON encoder
// (wireStash).
func (s *Stdio) Serve(ctx context.Context, srv *mcp.Server) error {
	if s.stash == nil {
		s.stash = &wireStash{}
	}
	return srv.Run(context.WithValue(ctx, stashKey{}, s.stash), s)
}

// Connect implements mcp.Transport.
func (s *Stdio) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		stash:    s.stash,
		out:      s.Out,
		msgs:     make(chan jsonrpc.Message),
		done:     make(chan struct{}),
		slots:    make(chan struct{}, MaxInFlight),
		inflight: map[any]bool{},
	}
	s.mu.Lock()
	s.conn = c
	s.mu.Unlock()
	go c.readLoop(bufio.NewReaderSize(s.In, 64<<10))
	return c, nil
}

type stdioConn struct {
	stash   *wireStash // nil unless served by Stdio.Serve
	out     io.Writer
	writeMu sync.Mutex

	msgs    chan jsonrpc.Message
	readErr error // set before msgs is closed
	done    chan struct{}
	once    sync.Once

	slots    chan struct{} // one token per request in flight
	mu       sync.Mutex
	inflight map[any]bool // request ids holding a slot
}

func (c *stdioConn) SessionID() string { return "" }

// Read returns the next well-formed message. Malformed lines never reach the SDK.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m, ok := <-c.msgs:
		if !ok {
			return nil, c.readErr
		}
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.done:
		return nil, io.EOF
	}
}

// Write sends one message as a line and releases the request's in-flight slot when it is the
// response to it.
func (c *stdioConn) Write(_ context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Response); ok && r.Error == nil {
		if wire, ok := c.stash.take(r.Result); ok {
			swapped := *r
			swapped.Result = wire
			m = &swapped
		}
	}
	b, err := encodeLine(m)
	if err != nil {
		return err
	}
	if err := c.writeLine(b); err != nil {
		return err
	}
	if resp, ok := m.(*jsonrpc.Response); ok {
		c.release(resp.ID.Raw())
	}
	return nil
}

func (c *stdioConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.done:
		return mcp.ErrConnectionClosed
	default:
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	if _, err := c.out.Write(b); err != nil {
		return err
	}
	return nil
}

func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// readLoop splits input into lines and hands well-formed messages to Read. It holds a slot for
// every request until its response is written, so at most MaxInFlight run at once.
func (c *stdioConn) readLoop(r *bufio.Reader) {
	defer close(c.msgs)
	for {
		line, tooLong, err := readLine(r)
		if tooLong {
			c.replyError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("request line exceeds %d bytes", MaxLineBytes))
		} else if len(bytes.TrimSpace(line)) > 0 {
			if msg := c.decode(line); msg != nil {
				if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
					if !c.acquire(req.ID.Raw()) {
						c.readErr = io.EOF
						return
					}
				}
				select {
				case c.msgs <- msg:
				case <-c.done:
					c.readErr = io.EOF
					return
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			c.readErr = err
			return
		}
	}
}

// decode parses one line, answering parse errors and invalid requests itself.
func (c *stdioConn) decode(line []byte) jsonrpc.Message {
	if !json.Valid(line) {
		c.replyError(nil, jsonrpc.CodeParseError, "parse error: the line is not valid JSON")
		return nil
	}
	var probe struct {
		ID     any             `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	isObject := json.Unmarshal(line, &probe) == nil
	msg, err := jsonrpc.DecodeMessage(line)
	if err == nil && isObject && probe.Method == nil && probe.Result == nil && probe.Error == nil {
		// Neither a request nor a response: the decoder reads it as a response to nothing, which
		// the SDK drops silently, and the client would wait for ever.
		err = errors.New("a request needs a method (a response needs a result or an error)")
	}
	if err != nil {
		c.replyError(probe.ID, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	return msg
}

// replyError writes an error response; id is the raw id when one could be read, else null.
func (c *stdioConn) replyError(id any, code int64, message string) {
	resp := struct {
		JSONRPC string        `json:"jsonrpc"`
		ID      any           `json:"id"`
		Error   jsonrpc.Error `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: jsonrpc.Error{Code: code, Message: message}}
	switch id.(type) {
	case string, float64, nil:
	default:
		resp.ID = nil
	}
	b, err := json.Marshal(resp)
	if err == nil {
		_ = c.writeLine(b)
	}
}

func (c *stdioConn) acquire(id any) bool {
	select {
	case c.slots <- struct{}{}:
	case <-c.done:
		return false
	}
	c.mu.Lock()
	if c.inflight[id] {
		// A duplicate id would leak a slot when only one response comes back.
		c.mu.Unlock()
		<-c.slots
		return true
	}
	c.inflight[id] = true
	c.mu.Unlock()
	return true
}

func (c *stdioConn) release(id any) {
	c.mu.Lock()
	held := c.inflight[id]
	delete(c.inflight, id)
	c.mu.Unlock()
	if held {
		<-c.slots
	}
}

// readLine returns one line without its terminator. A line longer than MaxLineBytes is consumed
// to its end and reported as tooLong, so one bad line cannot exhaust memory.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if len(buf)+len(chunk) > MaxLineBytes {
			tooLong = true
			buf = nil
		} else if !tooLong {
			buf = append(buf, chunk...)
		}
		if err != nil || !isPrefix {
			return buf, tooLong, err
		}
	}
}
