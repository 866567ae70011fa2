package tools_test

import (
	"syscall"
	"testing"

	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestWindowsHandle: windows takes handle like every other tool, as a filter and for waits.
func TestWindowsHandle(t *testing.T) {
	h := newHarness(t)
	type listing struct {
		Satisfied bool     `json:"satisfied"`
		Count     int      `json:"count"`
		Windows   []window `json:"windows"`
	}
	// xmessage (Xaw) sets no _NET_WM_PID: its pid comes from the X Resource extension.
	p := testdesk.Start(t, "xmessage", "-name", "mcec-handle", "handle test")
	var r listing
	h.ok("windows", map[string]any{"pid": p.PID, "condition": "appears", "timeout": 15000}, &r)
	if !r.Satisfied || r.Count != 1 {
		t.Fatalf("xmessage's window: %+v", r)
	}
	handle := r.Windows[0].Handle

	h.ok("windows", map[string]any{"handle": handle}, &r)
	if r.Count != 1 || r.Windows[0].Handle != handle || r.Windows[0].ProcessID != p.PID {
		t.Fatalf("windows by handle %d: %+v", handle, r)
	}
	// Every filter given must match.
	h.ok("windows", map[string]any{"handle": handle, "className": "not-xmessage"}, &r)
	if r.Count != 0 {
		t.Errorf("handle and another class matched: %+v", r)
	}

	pending := h.callAsync("windows", map[string]any{"handle": handle, "condition": "disappears", "timeout": 15000})
	if err := syscall.Kill(p.PID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	env := contracttest.Check(t, <-pending)
	if !env.OK() || env.DecodeResult(&r) != nil || !r.Satisfied || r.Count != 0 {
		t.Fatalf("disappears by handle: %+v", env)
	}
	// A handle that names no window lists nothing; it is not an error.
	h.ok("windows", map[string]any{"handle": handle}, &r)
	if r.Count != 0 {
		t.Errorf("closed handle still listed: %+v", r)
	}
}
