package testdesk

import (
	"bytes"
	"strings"
	"sync"
)

// LogBuffer is a log sink that several goroutines may write while a test reads it, e.g.
// slog.New(slog.NewTextHandler(logs, nil)) for a daemon under test. The zero value is ready.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Count is how many times s occurs in what has been written so far.
func (l *LogBuffer) Count(s string) int {
	return strings.Count(l.String(), s)
}
