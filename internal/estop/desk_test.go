package estop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/cli"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/estop"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/takeover"
	"github.com/mcec/mcec/internal/testdesk"
	_ "github.com/mcec/mcec/internal/xgbext"
)

func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }

// stopChord is estop.DefaultHotkey's keysyms: ctrl+alt+shift+s.
var stopChord = []uint32{0xffe3, 0xffe9, 0xffe1, 's'}

func call(t *testing.T, d *daemon.Daemon, tool string, args any) contract.Envelope {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := d.Dispatcher.Call(ctx, tool, raw)
	if err != nil {
		t.Fatal(err)
	}
	return contracttest.Check(t, contracttest.CheckEnvelope(t, out.Envelope))
}

func stopState(t *testing.T, d *daemon.Daemon) estop.Status {
	t.Helper()
	env := call(t, d, "session-status", map[string]any{})
	var res struct {
		EmergencyStop *estop.Status `json:"emergencyStop"`
	}
	if err := env.DecodeResult(&res); err != nil || res.EmergencyStop == nil {
		t.Fatalf("session-status: %v %+v", err, env)
	}
	return *res.EmergencyStop
}

// A hardware chord latches the stop in the middle of a slow drag: the drag aborts with no button
// held, every later call fails emergency-stopped, the same chord as XTEST input does nothing,
// and mcec rearm restores service.
func TestHardwareChordStopsMidDrag(t *testing.T) {
	logs := &testdesk.LogBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := daemon.Start(ctx, daemon.Config{SessionsDir: t.TempDir(), Safety: safety.Settings{AllowAll: true},
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if s := stopState(t, d); s.State != estop.Armed || s.Hotkey != estop.DefaultHotkey {
		t.Fatalf("at start: %+v", s)
	}
	hw := testdesk.NewHardware(t)

	// Plain XTEST input, as an agent's would be: nothing happens.
	hw.Chord(testdesk.XTEST, stopChord...)

	// A slow drag: 400 waypoints across the screen, thousands of server round trips.
	path := make([]map[string]int, 400)
	for i := range path {
		path[i] = map[string]int{"x": 100 + (i%2)*1000, "y": 100 + (i%2)*500}
	}
	raw, _ := json.Marshal(map[string]any{"from": map[string]int{"x": 50, "y": 50}, "to": map[string]int{"x": 60, "y": 60}, "path": path})
	dragOut := make(chan []byte, 1)
	go func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer ccancel()
		o, err := d.Dispatcher.Call(cctx, "drag", raw)
		if err != nil {
			dragOut <- []byte(err.Error())
			return
		}
		b, _ := json.Marshal(o.Envelope)
		dragOut <- b
	}()
	testdesk.WaitFor(t, 20*time.Second, "the drag to press the button", func() bool { return hw.Buttons() != 0 })

	hw.Chord(testdesk.Physical, stopChord...)
	var drag []byte
	select {
	case drag = <-dragOut:
	case <-time.After(30 * time.Second):
		t.Fatal("the drag did not abort")
	}
	contracttest.Fail(t, contracttest.Check(t, drag), contract.Internal, contract.CodeEmergencyStopped)
	if m := hw.Buttons(); m != 0 {
		t.Errorf("button mask %#x after the aborted drag", m)
	}
	s := stopState(t, d)
	if s.State != estop.Stopped || s.How != estop.ByHotkey || time.Since(s.Since) > time.Minute {
		t.Fatalf("after the chord: %+v", s)
	}
	// Exactly one chord was seen, from the Xvfb keyboard: the XTEST one before did nothing.
	var pressed []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "emergency stop hotkey pressed") {
			pressed = append(pressed, l)
		}
	}
	if len(pressed) != 1 || strings.Contains(pressed[0], "XTEST") {
		t.Errorf("hotkey presses logged: %q", pressed)
	}
	for _, c := range []struct {
		tool string
		args any
	}{
		{"windows", map[string]any{}},
		{"capture", map[string]any{"region": map[string]int{"x": 0, "y": 0, "width": 10, "height": 10}}},
		{"click", map[string]any{"at": map[string]int{"x": 5, "y": 5}}},
		{"send_command", map[string]any{"command": "mcec:ver"}},
	} {
		contracttest.Fail(t, call(t, d, c.tool, c.args), contract.Internal, contract.CodeEmergencyStopped)
	}
	var out, errOut bytes.Buffer
	if code := cli.Main([]string{"rearm", "--socket", d.Control.Path()}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("mcec rearm: exit %d: %s %s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "re-armed") {
		t.Errorf("mcec rearm said %q", out.String())
	}
	if s := stopState(t, d); s.State != estop.Armed || s.How != estop.ByControlSocket {
		t.Errorf("after rearm: %+v", s)
	}
	if env := call(t, d, "windows", map[string]any{}); !env.OK() {
		t.Errorf("windows after rearm: %+v", env.Err())
	}
}

// With physical take-over on, a person's own click takes control from the agents (their
// actions fail operator-in-control, observation still works) until they idle; an XTEST click,
// as an agent's or a VNC viewer's, never does, and neither does a modifier pressed alone.
func TestPhysicalInputTakesControl(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := daemon.Start(ctx, daemon.Config{SessionsDir: t.TempDir(),
		Safety: safety.Settings{AllowAll: true, PhysicalTakeover: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	hw := testdesk.NewHardware(t)
	click := map[string]any{"at": map[string]int{"x": 5, "y": 5}, "settle": 0}
	holder := func() string { return d.Takeover.Status().Holder }

	hw.Click(testdesk.XTEST, 20, 20)
	hw.Key(testdesk.Physical, 0xffe1) // Shift_L alone
	if env := call(t, d, "click", click); !env.OK() {
		t.Fatalf("an agent's click after XTEST input and a lone modifier: %+v", env.Err())
	}

	hw.Click(testdesk.Physical, 20, 20)
	testdesk.WaitFor(t, 20*time.Second, "the person's click to take control", func() bool { return holder() == takeover.Operator })
	if st := d.Takeover.Status(); st.How != takeover.HowPhysical {
		t.Errorf("taken through %q", st.How)
	}
	contracttest.Fail(t, call(t, d, "click", click), contract.Internal, contract.CodeOperatorInControl)
	if env := call(t, d, "windows", map[string]any{}); !env.OK() {
		t.Errorf("observation while the person has control: %+v", env.Err())
	}
	testdesk.WaitFor(t, takeover.PhysicalIdle+20*time.Second, "control to come back after the person idles",
		func() bool { return holder() == takeover.Agents })
	env := call(t, d, "click", click)
	if !env.OK() || !contracttest.HasWarning(env, contract.WarnOperatorIntervened) {
		t.Errorf("the agent's next click: %+v, warnings %v; want ok with operator-intervened", env.Err(), env.Warnings())
	}
}
