package atspi_test

import (
	"context"
	"encoding/json"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestPeerConnection reads a GTK 3 tree over the application's own socket and through the bus
// (with every table cell's text read, not taken from its name) and expects the same tree; then
// the application exits under the socket, and the client reports a closed window, not a broken
// accessibility bus, and goes on serving other applications.
func TestPeerConnection(t *testing.T) {
	a := startApp(t, python, "testdata/cells.py")
	other := startApp(t, python, "testdata/password.py")
	ctx := context.Background()
	c := connect(t, 2*time.Second)
	atspi.WithoutMirror(c)
	plain := connect(t, 2*time.Second)
	atspi.WithoutMirror(plain)
	atspi.WithoutPeers(plain)
	atspi.ReadingCellText(plain)
	atspi.MeasuringEveryCell(plain)

	tree := func(c *atspi.Client) string {
		t.Helper()
		tr, err := c.Tree(ctx, a.window(), all)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tr)
		return string(b)
	}
	var peered, viaBus string
	testdesk.WaitFor(t, 20*time.Second, "the same tree over the socket and through the bus", func() bool {
		peered, viaBus = tree(c), tree(plain)
		return peered == viaBus
	})
	if !atspi.PeeredAny(c) {
		t.Fatal("no peer connection to a GTK 3 application")
	}
	if atspi.PeeredAny(plain) {
		t.Fatal("a client without peers has one")
	}

	if err := syscall.Kill(a.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 10*time.Second, "the tree of the killed application to fail", func() bool {
		_, err := c.Tree(ctx, a.window(), all)
		if errors.Is(err, platform.ErrAtspiUnavailable) {
			t.Fatalf("after the application exited: %v, want a closed window", err)
		}
		return err != nil
	})
	if _, err := c.Tree(ctx, other.window(), all); err != nil {
		t.Fatalf("another application after one exited: %v", err)
	}
}
