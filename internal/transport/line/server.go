// Package line is the line-protocol TCP transport: raw commands, one per line, from home
// automation controllers and terminals (telnet works); refusals and tool calls are answered with
// the legacy JSON object. It serves loopback only, since the protocol has no authentication.
package line

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/errmap"
	"github.com/mcec/mcec/internal/rawcmd"
)

// DefaultPort is the line protocol's TCP port.
const DefaultPort = 5150

// writeLimit bounds one reply write, so a client that stops reading cannot hold a handler.
const writeLimit = 10 * time.Second

// ServerOptions configure the line server.
type ServerOptions struct {
	Log *slog.Logger
	// Exit is called after an mcec:exit reply has been written (the server itself keeps running
	// until its owner closes it).
	Exit func()
}

// Engine is the raw command queue as the line server uses it. The composition root adapts the
// queue (internal/rawcmd/queue) to it, so this transport reaches neither the queue's input nor
// the platform.
type Engine interface {
	// Connect opens a submitter for one connection.
	Connect() Submitter
}

// Submitter submits one connection's commands; Close releases the keys and buttons they left
// held.
type Submitter interface {
	Submit(line string) (Pending, error)
	Close()
}

// Pending is an accepted command.
type Pending struct {
	// Replies: the command has something to say (agent tools, mcec:…), answered before the next
	// line is read; other commands are fire-and-forget.
	Replies bool
	// IsTool: the command is exactly one agent tool call, answered with its envelope.
	IsTool bool
	// Done closes when the command has run; Result then says how.
	Done   <-chan struct{}
	Result func() (Answer, error)
}

// Answer is what a command that ran produced.
type Answer struct {
	// Tool is the envelope when the command was exactly one agent tool call.
	Tool *contract.Envelope
	// Output is the text the command produced.
	Output string
	// Exit is set by mcec:exit.
	Exit bool
}

// Server is the line-protocol TCP server: one command per line, any number of clients.
type Server struct {
	eng  Engine
	opts ServerOptions
	log  *slog.Logger
	ln   net.Listener

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Listen binds addr (host:port), which must be a loopback address.
func Listen(addr string, eng Engine, opts ServerOptions) (*Server, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ip := net.ParseIP(host)
	if host == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
	}
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("the line protocol has no authentication, so it serves loopback addresses only (127.0.0.1 or ::1), not %q", host)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), port))
	if err != nil {
		return nil, err
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Server{eng: eng, opts: opts, log: opts.Log, ln: ln, conns: map[net.Conn]struct{}{}}, nil
}

// Addr is the listening address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve accepts clients until Close.
func (s *Server) Serve() error {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return nil
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.handle(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// Close stops accepting, closes every client and waits for their handlers.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	err := s.ln.Close()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// handle serves one client: commands run in the order they arrive. Commands with something to say
// (agent tools, mcec:…, refusals) are answered before the next line is read; input commands are
// fire-and-forget, as home-automation controllers expect, and their failures are logged.
func (s *Server) handle(c net.Conn) {
	defer c.Close()
	// What this connection holds (shiftdown:, mouse:lbd) is released however it ends: a
	// controller that vanished must not leave a later agent click a Ctrl+click.
	client := s.eng.Connect()
	defer client.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := s.log.With("client", c.RemoteAddr().String())
	log.Info("line client connected")
	defer log.Info("line client disconnected")
	var wmu sync.Mutex
	write := func(b []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		_ = c.SetWriteDeadline(time.Now().Add(writeLimit))
		_, err := c.Write(b)
		return err
	}
	lr := &lineReader{reply: func(b []byte) { _ = write(b) }}
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		for _, ev := range lr.feed(buf[:n]) {
			if ev.tooLong {
				log.Warn("line too long; discarded", "limit", rawcmd.MaxLine)
				s.reply(write, legacyError(ev.line, contract.Errorf(contract.CodeBadArguments,
					"line longer than %d characters; discarded up to the next line end", rawcmd.MaxLine)))
				continue
			}
			if !s.run(ctx, log, client, write, ev.line) {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// run submits one line and answers it when it has an answer. It returns false when the
// connection should end (write failure or mcec:exit).
func (s *Server) run(ctx context.Context, log *slog.Logger, client Submitter, write func([]byte) error, line string) bool {
	t, err := client.Submit(line)
	name := rawcmd.CommandName(line)
	if err != nil {
		log.Info("line command refused", "command", rawcmd.Clip(line, 80), "err", err)
		return s.reply(write, legacyError(name, err))
	}
	if !t.Replies {
		go func() {
			<-t.Done
			if _, err := t.Result(); err != nil {
				log.Warn("line command failed", "command", rawcmd.Clip(line, 80), "err", err)
			}
		}()
		return true
	}
	select {
	case <-t.Done:
	case <-ctx.Done():
		return false
	}
	res, err := t.Result()
	switch {
	case t.IsTool && res.Tool != nil:
		if !s.reply(write, contract.ToLegacy(name, *res.Tool)) {
			return false
		}
	case err != nil:
		return s.reply(write, legacyError(name, err))
	default:
		if write([]byte(strings.ReplaceAll(res.Output, "\n", "\r\n")+"\r\n")) != nil {
			return false
		}
	}
	if res.Exit && s.opts.Exit != nil {
		log.Info("mcec:exit received; exiting")
		s.opts.Exit()
		return false
	}
	return true
}

func (s *Server) reply(write func([]byte) error, l contract.Legacy) bool {
	b, err := json.Marshal(l)
	if err != nil {
		return false
	}
	return write(append(b, '\r', '\n')) == nil
}

// legacyError is the legacy object of a refusal or failure.
func legacyError(cmd string, err error) contract.Legacy {
	return contract.ToLegacy(cmd, contract.Failure("line", errmap.ToContract(err, errmap.RawCommands)))
}

// Telnet bytes (RFC 854).
const (
	telIAC  = 255
	telDONT = 254
	telDO   = 253
	telWONT = 252
	telWILL = 251
	telSB   = 250
	telSE   = 240
)

// lineEvent is one complete line, or the end of an over-long one.
type lineEvent struct {
	line    string
	tooLong bool
}

// lineReader splits a byte stream into command lines: CR, LF and NUL end a line, empty lines are
// skipped, telnet commands are stripped (DO and WILL are refused with WONT and DONT, so a telnet
// client falls back to plain line mode), and a line over rawcmd.MaxLine characters is discarded up to
// the next line end. It keeps its state across reads, so anything may be split across packets.
type lineReader struct {
	reply func([]byte)

	buf        []byte
	runes      int
	discarding bool
	tel        int  // 0: data; 1: after IAC; 2: after IAC DO/DONT/WILL/WONT; 3: in SB; 4: IAC in SB
	telVerb    byte // the DO/DONT/WILL/WONT being read
}

func (r *lineReader) feed(p []byte) []lineEvent {
	var out []lineEvent
	for _, b := range p {
		switch r.tel {
		case 1:
			switch b {
			case telIAC: // an escaped 255 is data
				r.tel = 0
				r.data(b, &out)
			case telDO, telDONT, telWILL, telWONT:
				r.tel, r.telVerb = 2, b
			case telSB:
				r.tel = 3
			default: // NOP, GA, IP … carry no data
				r.tel = 0
			}
			continue
		case 2:
			switch r.telVerb {
			case telDO:
				r.reply([]byte{telIAC, telWONT, b})
			case telWILL:
				r.reply([]byte{telIAC, telDONT, b})
			}
			r.tel = 0
			continue
		case 3:
			if b == telIAC {
				r.tel = 4
			}
			continue
		case 4:
			if b == telSE {
				r.tel = 0
			} else {
				r.tel = 3
			}
			continue
		}
		if b == telIAC {
			r.tel = 1
			continue
		}
		r.data(b, &out)
	}
	return out
}

func (r *lineReader) data(b byte, out *[]lineEvent) {
	if b == '\r' || b == '\n' || b == 0 {
		switch {
		case r.discarding:
			*out = append(*out, lineEvent{line: string(r.buf), tooLong: true})
		case len(r.buf) > 0:
			*out = append(*out, lineEvent{line: string(r.buf)})
		}
		r.buf, r.runes, r.discarding = r.buf[:0], 0, false
		return
	}
	if r.discarding {
		return
	}
	if b&0xC0 != 0x80 { // a rune starts here
		r.runes++
	}
	if r.runes > rawcmd.MaxLine {
		r.discarding = true
		r.buf = append(r.buf[:0], rawcmd.CommandName(string(r.buf[:min(len(r.buf), 64)]))...)
		return
	}
	r.buf = append(r.buf, b)
}
