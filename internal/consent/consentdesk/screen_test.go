package consentdesk

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/consent"
	"github.com/mcec/mcec/internal/consent/screen"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/sysload"
	"github.com/mcec/mcec/internal/testdesk"
	_ "github.com/mcec/mcec/internal/xgbext"
)

// operator is the person at the test desktop: it finds the consent dialog and presses on it
// with testdesk.Hardware, as the Xvfb mouse and keyboard or as plain XTEST input.
type operator struct {
	*testdesk.Hardware
	t                *testing.T
	x                *xgb.Conn
	root             xproto.Window
	clientList, name xproto.Atom
	state            xproto.Atom
}

func newOperator(t *testing.T) *operator {
	t.Helper()
	hw := testdesk.NewHardware(t)
	o := &operator{Hardware: hw, t: t, x: hw.Conn()}
	o.root = xproto.Setup(o.x).DefaultScreen(o.x).Root
	o.clientList, o.name, o.state = o.atom("_NET_CLIENT_LIST"), o.atom("_NET_WM_NAME"), o.atom(screen.StateProperty)
	return o
}

func (o *operator) atom(name string) xproto.Atom {
	r, err := xproto.InternAtom(o.x, false, uint16(len(name)), name).Reply()
	if err != nil {
		o.t.Fatal(err)
	}
	return r.Atom
}

// dialog is the managed window titled screen.Title, or 0.
func (o *operator) dialog() xproto.Window {
	list, err := xproto.GetProperty(o.x, false, o.root, o.clientList, xproto.AtomWindow, 0, 4096).Reply()
	if err != nil {
		o.t.Fatal(err)
	}
	for i := 0; i+4 <= len(list.Value); i += 4 {
		w := xproto.Window(xgb.Get32(list.Value[i:]))
		if n, err := xproto.GetProperty(o.x, false, w, o.name, xproto.GetPropertyTypeAny, 0, 64).Reply(); err == nil && string(n.Value) == screen.Title {
			return w
		}
	}
	return 0
}

// waitDialog waits until the dialog is on screen, takes presses and has the keyboard focus.
func (o *operator) waitDialog() xproto.Window {
	o.t.Helper()
	var w xproto.Window
	testdesk.WaitFor(o.t, 20*time.Second, "the consent dialog to be shown, armed and focused", func() bool {
		if w = o.dialog(); w == 0 {
			return false
		}
		st, err := xproto.GetProperty(o.x, false, w, o.state, xproto.AtomString, 0, 16).Reply()
		if err != nil || string(st.Value) != "armed" {
			return false
		}
		f, err := xproto.GetInputFocus(o.x).Reply()
		return err == nil && f.Focus == w
	})
	return w
}

func (o *operator) waitGone(w xproto.Window) {
	o.t.Helper()
	testdesk.WaitFor(o.t, 20*time.Second, "the consent dialog to close", func() bool {
		_, err := xproto.GetWindowAttributes(o.x, w).Reply()
		return err != nil && o.dialog() == 0
	})
}

// press clicks the centre of answer a's button as src.
func (o *operator) press(src testdesk.Source, w xproto.Window, a consent.Answer) {
	g, err := xproto.GetGeometry(o.x, xproto.Drawable(w)).Reply()
	if err != nil {
		o.t.Fatal(err)
	}
	pos, err := xproto.TranslateCoordinates(o.x, w, o.root, 0, 0).Reply()
	if err != nil {
		o.t.Fatal(err)
	}
	rects, err := screen.ButtonRects(int(g.Height))
	if err != nil {
		o.t.Fatal(err)
	}
	r := rects[a]
	o.Click(src, int(pos.DstX)+(r.Min.X+r.Max.X)/2, int(pos.DstY)+(r.Min.Y+r.Max.Y)/2)
}

func startDialogDaemon(t *testing.T, timeout time.Duration) (*daemon.Daemon, *testdesk.LogBuffer) {
	logs := &testdesk.LogBuffer{}
	d := startDaemonWith(t, daemon.Config{ConsentTimeout: timeout,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	// The on-screen prompter alone makes consent available on an attached desktop.
	testdesk.WaitFor(t, 20*time.Second, "the on-screen prompter to wait for questions", d.Consent.Available)
	return d, logs
}

const ignored = "ignored a press that is not from a physical device"

// The dialog shows the question; agents cannot see or target it; XTEST presses (mcec's own
// input, xdotool) do nothing; a hardware click on Allow grants, a hardware "n" denies.
func TestConsentDialog(t *testing.T) {
	d, logs := startDialogDaemon(t, 60*time.Second)
	op := newOperator(t)
	ask := func(names ...string) map[string]any {
		return map[string]any{"commands": names, "reason": "open the editor\u202Egnp.exe\x1b[2J"}
	}

	pending := callAsync(d, "request-command-access", ask("launch"))
	w := op.waitDialog()

	// Not listed, not targetable.
	env := call(t, d, "windows", map[string]any{})
	var listed struct {
		Windows []struct {
			Handle uint32 `json:"handle"`
			Title  string `json:"title"`
		} `json:"windows"`
	}
	if err := env.DecodeResult(&listed); err != nil || !env.OK() {
		t.Fatalf("windows: %+v %v", env.Err(), err)
	}
	for _, lw := range listed.Windows {
		if lw.Handle == uint32(w) || lw.Title == screen.Title {
			t.Errorf("windows lists the consent dialog: %+v", lw)
		}
	}

	// Plain XTEST presses on Deny, on Allow, and the key n: seen and ignored.
	op.press(testdesk.XTEST, w, consent.Deny)
	op.Key(testdesk.XTEST, 'n')
	op.press(testdesk.XTEST, w, consent.Grant)
	// Seen once beside a second make test: the count never reached 3. Say what it reached.
	deadline := time.Now().Add(sysload.Scale(20 * time.Second))
	for n := logs.Count(ignored); n != 3; n = logs.Count(ignored) {
		if time.Now().After(deadline) {
			t.Fatalf("%d presses logged as ignored, want 3 (Deny and Allow clicked, n typed, all by XTEST); the log:\n%s", n, logs.String())
		}
		time.Sleep(50 * time.Millisecond) // polling the log, under a deadline
	}
	if !d.Consent.Pending() || op.dialog() != w {
		t.Fatal("an XTEST press answered the dialog")
	}

	// The operator's own mouse: granted (had an XTEST press counted, the answer would be deny).
	op.press(testdesk.Physical, w, consent.Grant)
	env = contracttest.Check(t, <-pending)
	var res accessResult
	if err := env.DecodeResult(&res); err != nil || !env.OK() || !slices.Equal(res.Granted, []string{"launch"}) {
		t.Fatalf("hardware click on Allow: %+v %+v %v", env.Err(), res, err)
	}
	op.waitGone(w)
	if n := logs.Count("answered on screen"); n != 1 || logs.Count("device=\"Xvfb") != 1 {
		t.Errorf("want one on-screen answer from an Xvfb device, logged %d", n)
	}
	launchSleep(t, d)

	// The keyboard: a hardware "n" denies.
	testdesk.WaitFor(t, 20*time.Second, "the prompter to come back", d.Consent.Available)
	pending = callAsync(d, "request-command-access", ask("keysym"))
	w = op.waitDialog()
	op.Key(testdesk.XTEST, 'y') // XTEST: ignored
	testdesk.WaitFor(t, 20*time.Second, "the dialog to ignore the XTEST key", func() bool { return logs.Count(ignored) == 4 })
	op.Key(testdesk.Physical, 'n')
	wantCode(t, contracttest.Check(t, <-pending), contract.CodeConsentDenied)
	op.waitGone(w)
}

// The dialog closes when the question times out, and when `mcec consent` answers first.
func TestConsentDialogClosed(t *testing.T) {
	d, _ := startDialogDaemon(t, 3*time.Second)
	op := newOperator(t)
	pending := callAsync(d, "request-command-access", map[string]any{"commands": []string{"launch"}, "reason": "timeout test"})
	testdesk.WaitFor(t, 20*time.Second, "the consent dialog", func() bool { return op.dialog() != 0 })
	w := op.dialog()
	wantCode(t, contracttest.Check(t, <-pending), contract.CodeConsentTimeout)
	op.waitGone(w)

	term := startTerminal(t, d)
	pending = callAsync(d, "request-command-access", map[string]any{"commands": []string{"launch"}, "reason": "terminal test"})
	term.waitFor(t, "request c2")
	testdesk.WaitFor(t, 20*time.Second, "the consent dialog", func() bool { return op.dialog() != 0 })
	w = op.dialog()
	term.answer(t, "y")
	env := contracttest.Check(t, <-pending)
	if !env.OK() {
		t.Fatalf("terminal grant: %+v", env.Err())
	}
	op.waitGone(w)
}
