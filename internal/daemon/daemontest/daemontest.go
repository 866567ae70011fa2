// Package daemontest runs the whole daemon — catalog, dispatcher, gates, emergency stop,
// consent, evidence — over an in-memory desktop (internal/platform/fake), for fast,
// deterministic tests of tools, dispatch, evidence and safety without an X server; Bare is the
// catalog and dispatcher alone, for testing/synctest bubbles. It owns only that wiring and the
// call helpers; the scenes are the tests' own.
package daemontest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/inputgate"
	"github.com/mcec/mcec/internal/platform/fake"
	"github.com/mcec/mcec/internal/session"
	"github.com/mcec/mcec/internal/tools"
)

// Daemon is a daemon serving a fake desktop.
type Daemon struct {
	*daemon.Daemon
	Fake *fake.Desktop
	// Dir holds the sessions directory (evidence), the commands file and the control socket.
	Dir string
	t   testing.TB
}

// Start assembles a daemon over a new fake desktop. cfg's paths left empty are the test's own
// temporary ones. The daemon counts as attached to a desktop (it started none), so it serves
// tools only with the operator's opt-in: cfg.Safety.AllowAll, as tests of the real desktop
// pass too. The daemon closes at the test's cleanup.
func Start(t testing.TB, cfg daemon.Config) *Daemon {
	t.Helper()
	return StartWith(t, cfg, fake.Options{})
}

// StartWith is Start over a fake desktop made with opts.
func StartWith(t testing.TB, cfg daemon.Config, opts fake.Options) *Daemon {
	t.Helper()
	d := &Daemon{Fake: fake.New(opts), Dir: t.TempDir(), t: t}
	cfg.Desktop = d.Fake
	if cfg.SessionsDir == "" {
		cfg.SessionsDir = filepath.Join(d.Dir, "sessions")
	}
	if cfg.Commands.File == "" {
		cfg.Commands.File = filepath.Join(d.Dir, "commands.toml")
	}
	if cfg.ControlSocket == "" {
		cfg.ControlSocket = filepath.Join(d.Dir, "control.sock")
	}
	cfg.NoConsentDialog = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	if d.Daemon, err = daemon.Start(ctx, cfg); err != nil {
		t.Fatalf("daemontest: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("daemontest: close: %v", err)
		}
	})
	return d
}

// Call runs one tool through the dispatcher, as every transport does, and returns the envelope
// after checking it against the contract's JSON Schema.
func (d *Daemon) Call(t testing.TB, tool string, args any) contract.Envelope {
	t.Helper()
	out, err := d.CallErr(tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	CheckOutput(t, d.Dispatcher.Catalog(), tool, out)
	return contracttest.Check(t, contracttest.CheckEnvelope(t, out))
}

// CheckOutput fails the test when an envelope does not match the tool's outputSchema
// (catalog.Tool.CheckOutput): the schema tools/list advertises and docs/tools.md shows is the
// one tools keep to.
func CheckOutput(t testing.TB, cat *catalog.Catalog, tool string, env contract.Envelope) {
	t.Helper()
	if tl, ok := cat.Lookup(tool); ok {
		b, err := env.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := tl.CheckOutput(b); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// CallErr runs one tool without checking anything, for calls made off the test's goroutine
// (whose envelope the test checks later with contracttest).
func (d *Daemon) CallErr(tool string, args any) (contract.Envelope, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return contract.Envelope{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := d.Dispatcher.Call(ctx, tool, raw)
	return out.Envelope, err
}

// OK runs a tool that must succeed and decodes its result into result (when not nil).
func (d *Daemon) OK(t testing.TB, tool string, args any, result any) contract.Envelope {
	t.Helper()
	env := d.Call(t, tool, args)
	if !env.OK() {
		t.Fatalf("%s %v failed: %+v", tool, args, env.Err())
	}
	if result != nil {
		if err := env.DecodeResult(result); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// Bare is the tool catalog and the dispatcher over a fake desktop, without the rest of the
// daemon: no gates, no emergency stop, no sockets and no goroutines of its own, so it can live
// inside a testing/synctest bubble, where the tools' timers (settling, waiting, deadlines) run on
// the bubble's fake clock.
type Bare struct {
	Fake       *fake.Desktop
	Sessions   *session.Store
	Dispatcher *dispatch.Dispatcher
	// Root is the sessions directory.
	Root string
}

// NewBare assembles tools and a dispatcher over a new fake desktop made with opts; the fake
// closes at the test's cleanup.
func NewBare(t testing.TB, opts fake.Options) *Bare {
	t.Helper()
	b := &Bare{Fake: fake.New(opts), Root: t.TempDir()}
	b.Sessions = session.NewStore(session.Options{Root: b.Root})
	cat := catalog.New()
	tools.Register(cat, &tools.Env{Desktop: b.Fake, Sessions: b.Sessions, Gate: inputgate.New(b.Fake.Input(), nil)})
	b.Dispatcher = dispatch.New(cat, b.Sessions, nil)
	t.Cleanup(func() { _ = b.Fake.Close() })
	return b
}

// Call runs one tool and returns its envelope, checked against the contract's JSON Schema.
func (b *Bare) Call(t testing.TB, tool string, args any) contract.Envelope {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Dispatcher.Call(context.Background(), tool, raw)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	CheckOutput(t, b.Dispatcher.Catalog(), tool, out.Envelope)
	return contracttest.Check(t, contracttest.CheckEnvelope(t, out.Envelope))
}
