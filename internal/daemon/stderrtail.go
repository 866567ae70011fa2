package daemon

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// stderrTail keeps the last bytes a program wrote to its standard error, so that a program that
// exits before showing a window can be reported with its own reason ("Running as root without
// --no-sandbox is not supported") instead of a bare exit status.
//
// The program gets the write end of an os.Pipe (an *os.File, so exec starts no copying goroutine
// and cmd.Wait does not wait for children that inherited it); one goroutine drains the read end
// for as long as any process holds the write end, keeping only the tail. Only programs owned by a
// private desktop get one: they die with the desktop, while a program started on an attached
// desktop outlives mcec and would get SIGPIPE on its next write once the read end closed.
type stderrTail struct {
	mu   sync.Mutex
	buf  []byte
	eof  chan struct{}
	read *os.File
}

// stderrTailBytes bounds the tail: a few lines of a program's last words.
const stderrTailBytes = 2048

// newStderrTail returns the tail and the write end to give the program as cmd.Stderr; the caller
// closes its copy of the write end once the program has started.
func newStderrTail() (*stderrTail, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	t := &stderrTail{eof: make(chan struct{}), read: r}
	go t.drain()
	return t, w, nil
}

func (t *stderrTail) drain() {
	defer close(t.eof)
	defer t.read.Close()
	chunk := make([]byte, 4096)
	for {
		n, err := t.read.Read(chunk)
		if n > 0 {
			t.mu.Lock()
			t.buf = append(t.buf, chunk[:n]...)
			if over := len(t.buf) - stderrTailBytes; over > 0 {
				t.buf = append(t.buf[:0], t.buf[over:]...)
			}
			t.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// stderrGrace is how long the tail is given, after the program exited, to read what is still in
// the pipe (children that inherited it may keep it open for much longer: then the tail is what
// was read by then).
const stderrGrace = 250 * time.Millisecond

// lines returns the tail's last complete lines (at most maxLines), trimmed, once the pipe reached
// its end or the grace ran out.
func (t *stderrTail) lines(maxLines int) string {
	select {
	case <-t.eof:
	case <-time.After(stderrGrace):
	}
	t.mu.Lock()
	full := len(t.buf) == stderrTailBytes
	b := bytes.TrimSpace(bytes.Clone(t.buf))
	t.mu.Unlock()
	if full {
		// The first line may be cut: drop it.
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	ls := strings.Split(strings.ToValidUTF8(string(b), "\uFFFD"), "\n")
	if len(ls) > maxLines {
		ls = ls[len(ls)-maxLines:]
	}
	return strings.TrimSpace(strings.Join(ls, " | "))
}

// ExitWithStderr is a program's exit error with the last lines it wrote to standard error.
type ExitWithStderr struct {
	Err    error  // the exit error from cmd.Wait
	Stderr string // its last lines, joined with " | "
}

func (e *ExitWithStderr) Error() string {
	return e.Err.Error() + "; its last words on stderr: " + e.Stderr
}
func (e *ExitWithStderr) Unwrap() error { return e.Err }

// LastStderr is how tools read the tail without importing the daemon.
func (e *ExitWithStderr) LastStderr() string { return e.Stderr }

// annotate wraps a failed exit with the tail, when there is one.
func (t *stderrTail) annotate(err error) error {
	if err == nil || t == nil || errors.Is(err, io.EOF) {
		return err
	}
	if s := t.lines(stderrTailLines); s != "" {
		return &ExitWithStderr{Err: err, Stderr: s}
	}
	return err
}

// stderrTailLines is how many lines a failure quotes.
const stderrTailLines = 4
