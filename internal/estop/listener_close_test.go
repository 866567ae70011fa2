package estop

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/xinput2"
)

// closingConn plays a connection that has read six keyboard MappingNotify events off the socket
// when Close arrives: they are handed out after Close, and every request then fails as a closed
// connection does.
type closingConn struct {
	closed  chan struct{}
	once    sync.Once
	pending int
}

func (c *closingConn) SelectRawInput() error { return nil }
func (c *closingConn) QueryDevices() ([]xinput2.Device, error) {
	return nil, fmt.Errorf("read: %w", net.ErrClosed)
}
func (c *closingConn) KeyboardMapping() (xinput2.Keymap, error) {
	return xinput2.Keymap{}, fmt.Errorf("read unix @->/tmp/.X11-unix/X1: %w", net.ErrClosed)
}
func (c *closingConn) NextEvent() (xinput2.Event, error) {
	<-c.closed
	if c.pending > 0 {
		c.pending--
		if c.pending%2 == 0 {
			return xinput2.Event{Kind: xinput2.HierarchyChanged}, nil
		}
		return xinput2.Event{Kind: xinput2.MappingNotify, Request: 1}, nil
	}
	return xinput2.Event{}, fmt.Errorf("read: %w", net.ErrClosed)
}
func (c *closingConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Issue 17 row 17: closing the listener while events it already read wait to be handled logs
// nothing ("cannot re-read the keyboard map … use of closed network connection" six times was
// what exit looked like), and leaves the stop's state alone.
func TestCloseIsQuiet(t *testing.T) {
	hk, err := ParseHotkey(DefaultHotkey)
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedLog
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	latch := New(Options{Log: log})
	latch.SetHotkey(hk.String(), "")
	ls := &Listener{c: &closingConn{closed: make(chan struct{}), pending: 12}, hk: hk, latch: latch, log: log,
		t: newTracker(hk), done: make(chan struct{})}
	go ls.run()
	closed := make(chan error, 1)
	go func() { closed <- ls.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	if bytes.Contains(logs.b.Bytes(), []byte("level=WARN")) {
		t.Errorf("closing logged warnings:\n%s", logs.b.String())
	}
	if s := latch.Status(); s.State != Armed {
		t.Errorf("after Close the stop reads %+v", s)
	}
}
