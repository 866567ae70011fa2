package estop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/cli"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/estop"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/testdesk"
	"github.com/mcec/mcec/internal/xgbext"
	_ "github.com/mcec/mcec/internal/xgbquiet"
	"github.com/mcec/mcec/internal/xinput2"
)

func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }

// syncBuffer is a log sink written by several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// keyboard injects keys on the test desktop: as the Xvfb keyboard (XTEST FakeInput with the
// XInput 1 device event types and that device's id: what the server reports as hardware), or
// as plain XTEST core input (what mcec and every XTEST client produce).
type keyboard struct {
	t          *testing.T
	x          *xgb.Conn
	firstEvent byte
	device     byte
	codes      map[string]byte
}

func newKeyboard(t *testing.T) *keyboard {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	display := testdesk.Desktop().Display()
	xi, err := xinput2.Dial(ctx, display)
	if err != nil {
		t.Fatal(err)
	}
	defer xi.Close()
	devs, err := xi.QueryDevices()
	if err != nil {
		t.Fatal(err)
	}
	k := &keyboard{t: t, firstEvent: xi.XIFirstEvent, codes: map[string]byte{}}
	for _, d := range devs {
		if d.Use == xinput2.SlaveKeyboard && !strings.Contains(d.Name, "XTEST") && strings.Contains(d.Name, "keyboard") {
			k.device = byte(d.ID)
		}
	}
	if k.device == 0 {
		t.Fatalf("no Xvfb keyboard among %+v", devs)
	}
	km, err := xi.KeyboardMapping()
	if err != nil {
		t.Fatal(err)
	}
	for name, sym := range map[string]uint32{"ctrl": 0xffe3, "alt": 0xffe9, "shift": 0xffe1, "s": 's'} {
		codes := km.Codes(sym)
		if len(codes) == 0 {
			t.Fatalf("%s is not on the keymap", name)
		}
		k.codes[name] = byte(codes[0])
	}
	if k.x, err = xgb.NewConnDisplay(display); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.x.Close)
	if err := xgbext.RegisterAll(k.x); err != nil {
		t.Fatal(err)
	}
	return k
}

// chord presses ctrl+alt+shift+s and releases it, as hardware or as XTEST core input.
func (k *keyboard) chord(hardware bool) {
	press, release, dev := byte(xproto.KeyPress), byte(xproto.KeyRelease), byte(0)
	if hardware {
		press, release, dev = k.firstEvent+1, k.firstEvent+2, k.device // DeviceKeyPress, DeviceKeyRelease
	}
	keys := []string{"ctrl", "alt", "shift", "s"}
	for _, n := range keys {
		xtest.FakeInput(k.x, press, k.codes[n], 0, 0, 0, 0, dev)
	}
	for i := len(keys) - 1; i >= 0; i-- {
		xtest.FakeInput(k.x, release, k.codes[keys[i]], 0, 0, 0, 0, dev)
	}
	if _, err := xproto.GetInputFocus(k.x).Reply(); err != nil {
		k.t.Fatal(err)
	}
}

// buttons is the pointer's button mask.
func (k *keyboard) buttons() uint16 {
	r, err := xproto.QueryPointer(k.x, xproto.Setup(k.x).DefaultScreen(k.x).Root).Reply()
	if err != nil {
		k.t.Fatal(err)
	}
	return r.Mask & (xproto.ButtonMask1 | xproto.ButtonMask2 | xproto.ButtonMask3 | xproto.ButtonMask4 | xproto.ButtonMask5)
}

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
	logs := &syncBuffer{}
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
	kb := newKeyboard(t)

	// Plain XTEST input, as an agent's would be: nothing happens.
	kb.chord(false)

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
	testdesk.WaitFor(t, 20*time.Second, "the drag to press the button", func() bool { return kb.buttons() != 0 })

	kb.chord(true)
	var drag []byte
	select {
	case drag = <-dragOut:
	case <-time.After(30 * time.Second):
		t.Fatal("the drag did not abort")
	}
	contracttest.Fail(t, contracttest.Check(t, drag), contract.Internal, contract.CodeEmergencyStopped)
	if m := kb.buttons(); m != 0 {
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
	// Still stopped after more XTEST chords.
	kb.chord(false)

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
