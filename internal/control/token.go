package control

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcec/mcec/internal/atomicfile"
)

// The bearer token `mcec serve` makes up at start lives in a file beside the control sockets,
// token-<port>, mode 0600 in a directory only the user can enter: the user's own clients (mcec
// call, the stdio bridge) read it there; other users cannot. The server holds a shared lock on
// the file while it runs, so a file nobody locks belongs to a server that is gone (killed
// outright): readers ignore it and the next publisher removes it.

// tokenFile is the path of the token file of the server on port, in dir.
func tokenFile(dir string, port int) string {
	return filepath.Join(dir, "token-"+strconv.Itoa(port))
}

// PublishedToken is a token file this process wrote and holds.
type PublishedToken struct {
	path string
	lock *os.File // open with a shared flock for as long as the server runs
}

// Path is the token file's path.
func (p *PublishedToken) Path() string { return p.path }

// Remove deletes the token file (if it is still this server's) and releases its lock. It is
// idempotent.
func (p *PublishedToken) Remove() {
	if p == nil || p.lock == nil {
		return
	}
	if sameFile(p.lock, p.path) {
		_ = os.Remove(p.path)
	}
	p.lock.Close()
	p.lock = nil
}

// PublishToken writes token for the server listening on port, atomically, mode 0600, into the
// first usable socket directory, and locks it until Remove. Token files of servers that are
// gone are removed on the way.
func PublishToken(port int, token string) (*PublishedToken, error) {
	if strings.ContainsAny(token, "\r\n") || token == "" {
		return nil, errors.New("token file: the token is empty or spans lines")
	}
	var errs []error
	for _, dir := range dirs() {
		p, err := publishIn(dir, port, token)
		if err == nil {
			return p, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func publishIn(dir string, port int, token string) (*PublishedToken, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	if err := checkPrivateDir(dir); err != nil {
		return nil, err
	}
	sweepTokens(dir)
	path := tokenFile(dir, port)
	// Another server's sweep may take the file between its rename and our lock: then write it
	// again (a sweep only removes files nobody locks).
	for range 3 {
		if err := atomicfile.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("token file: %w", err)
		}
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
			f.Close()
			return nil, fmt.Errorf("token file: %w", err)
		}
		if sameFile(f, path) {
			return &PublishedToken{path: path, lock: f}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("token file %s: removed as soon as written", path)
}

// ReadToken returns the token of the server of this user listening on port, or "" when no
// running server published one.
func ReadToken(port int) string {
	for _, dir := range dirs() {
		path := tokenFile(dir, port)
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		held := locked(f)
		b, err := readSmall(f)
		f.Close()
		if err != nil || !held {
			continue
		}
		if tok := strings.TrimSpace(string(b)); tok != "" {
			return tok
		}
	}
	return ""
}

// readSmall reads a token file: a line, never more than 4 KiB.
func readSmall(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// Only a regular file of the user's, unreadable to others, is trusted.
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 || (ok && int(st.Uid) != os.Getuid()) {
		return nil, errors.New("not a private regular file")
	}
	b := make([]byte, 4096)
	n, err := f.Read(b)
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}

// locked reports whether a running server holds f's lock: an exclusive lock cannot be taken.
func locked(f *os.File) bool {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// sweepTokens removes dir's token files that no running server holds.
func sweepTokens(dir string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "token-*"))
	for _, m := range matches {
		if _, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(m), "token-")); err != nil {
			continue // an atomicfile temporary or someone else's name
		}
		f, err := os.Open(m)
		if err != nil {
			continue
		}
		// Holding the exclusive lock while removing: a server publishing this port now either
		// renamed its file in before (then the name is no longer this file) or after.
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil && sameFile(f, m) {
			_ = os.Remove(m)
		}
		f.Close()
	}
}

// sameFile reports whether path still names the open file f.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}
