// Package density starts a fleet of isolated mcec instances on one machine (internal/provision:
// each its own `mcec serve --headless`, desktop, port and token), each with a small GTK app, and
// measures and checks them: time to a ready instance, memory and CPU per idle instance by
// component, calls per second across the fleet, and that no instance sees another's windows,
// clipboard or input. make bench reports it (internal/dev/bench, group density); the isolation
// check also runs as a test.
package density

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/provision"
)

//go:embed isoapp.py
var isoApp []byte

// EntryName is the accessible name of the app's entry.
const EntryName = "isolation-entry"

// Options configure Start.
type Options struct {
	Binary    string   // the mcec binary
	N         int      // instances
	ServeArgs []string // further flags for each `mcec serve` (e.g. --no-glx)
	// Check, when set, sees every envelope an instance returns (tests validate it against the
	// JSON Schema); an error fails the call.
	Check func(tool string, envelope []byte) error
	// StartTimeout bounds each instance's start (default 120 s: 16 desktops at once on 2 cores).
	StartTimeout time.Duration
	// Warm pre-starts all N instances in the provisioning manager's warm pool (Options.Warm)
	// before any is asked for: Serving and Ready then measure handing out a warm instance.
	Warm bool
}

// Member is one instance of the fleet.
type Member struct {
	provision.Instance
	Title string // its app's window title
	// Serving is how long Provision took: the desktop (Xvfb, D-Bus, AT-SPI, openbox) is up and
	// mcec answers on its port.
	Serving time.Duration
	// Ready is how long until GET /readyz answered 200: the app's window is mapped too.
	Ready time.Duration

	client *http.Client
	check  func(string, []byte) error
}

// Fleet is a running set of instances.
type Fleet struct {
	Members []*Member
	mgr     *provision.Manager
	dir     string
}

// Start provisions opt.N instances at once, each with the app, and returns when every one is
// ready (or the first error, after stopping all).
func Start(ctx context.Context, opt Options) (_ *Fleet, err error) {
	if opt.N < 1 {
		return nil, errors.New("density: N < 1")
	}
	if opt.StartTimeout <= 0 {
		opt.StartTimeout = 120 * time.Second
	}
	// Instances run in directories of their own: a relative path would not find the binary.
	if opt.Binary, err = filepath.Abs(opt.Binary); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "mcec-density-")
	if err != nil {
		return nil, err
	}
	f := &Fleet{dir: dir}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	app := filepath.Join(dir, "isoapp.py")
	if strings.ContainsAny(app, " \t") { // --launch splits on spaces
		return nil, fmt.Errorf("density: temporary path %q has a space", app)
	}
	if err := os.WriteFile(app, isoApp, 0o644); err != nil {
		return nil, err
	}
	warm := 0
	if opt.Warm {
		warm = opt.N
	}
	f.mgr, err = provision.NewManager(provision.Options{Binary: opt.Binary, Dir: filepath.Join(dir, "instances"),
		SessionsDir: filepath.Join(dir, "sessions"), MaxInstances: opt.N, StartTimeout: opt.StartTimeout,
		// The Debian interpreter: python3-gi is installed for it, not for a python3 earlier on PATH.
		Launch: []string{"/usr/bin/python3 " + app}, ServeArgs: opt.ServeArgs, Warm: warm})
	if err != nil {
		return nil, err
	}
	if opt.Warm {
		deadline := time.Now().Add(opt.StartTimeout)
		for f.mgr.Pooled() < opt.N {
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("density: the warm pool holds %d of %d after %s", f.mgr.Pooled(), opt.N, opt.StartTimeout)
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(50 * time.Millisecond): // polling the pool's size, under a deadline
			}
		}
	}
	f.Members = make([]*Member, opt.N)
	errs := make([]error, opt.N)
	var wg sync.WaitGroup
	for i := range opt.N {
		wg.Go(func() { f.Members[i], errs[i] = f.startOne(ctx, opt) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *Fleet) startOne(ctx context.Context, opt Options) (*Member, error) {
	began := time.Now()
	inst, err := f.mgr.Provision(ctx)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 8
	m := &Member{Instance: inst, Title: "mcec-density " + inst.ID, Serving: time.Since(began),
		client: &http.Client{Transport: tr, Timeout: 60 * time.Second}, check: opt.Check}
	deadline := time.Now().Add(opt.StartTimeout)
	for {
		ok, err := m.ready(ctx)
		if ok {
			m.Ready = time.Since(began)
			return m, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: /readyz not 200 within %s (last: %v)", inst.ID, opt.StartTimeout, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond): // an HTTP probe: nothing to wait on but the next poll
		}
	}
}

// ready asks the instance's /readyz (no token).
func (m *Member) ready(ctx context.Context) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.BaseURL()+"/readyz", nil)
	if err != nil {
		return false, err
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return false, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("readyz: HTTP %d", resp.StatusCode)
	}
	return true, nil
}

// Close stops every instance (by PID, through the manager) and removes the fleet's directory.
func (f *Fleet) Close() {
	if f.mgr != nil {
		_ = f.mgr.Close()
	}
	_ = os.RemoveAll(f.dir)
}

// envelope is the part of an answer the fleet reads.
type envelope struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	} `json:"error"`
}

// Call calls tool on the member's façade with its token and decodes the result into out
// (when given); a not-ok envelope is an error.
func (m *Member) Call(ctx context.Context, tool string, args, out any) error {
	if args == nil {
		args = map[string]any{}
	}
	body, err := json.Marshal(args)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.BaseURL()+"/v1/tools/"+tool, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+m.Token)
	resp, err := m.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", tool, m.ID, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s on %s: HTTP %d: %s", tool, m.ID, resp.StatusCode, b)
	}
	if m.check != nil {
		if err := m.check(tool, b); err != nil {
			return fmt.Errorf("%s on %s: %w", tool, m.ID, err)
		}
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return fmt.Errorf("%s on %s: envelope: %w", tool, m.ID, err)
	}
	if !env.OK {
		if env.Error == nil {
			return fmt.Errorf("%s on %s: not ok", tool, m.ID)
		}
		return fmt.Errorf("%s on %s: %s: %s", tool, m.ID, env.Error.Code, env.Error.Detail)
	}
	if out != nil {
		if err := json.Unmarshal(env.Result, out); err != nil {
			return fmt.Errorf("%s on %s: result: %w", tool, m.ID, err)
		}
	}
	return nil
}

// each runs f for every member at once and joins the errors.
func (f *Fleet) each(fn func(i int, m *Member) error) error {
	errs := make([]error, len(f.Members))
	var wg sync.WaitGroup
	for i, m := range f.Members {
		wg.Go(func() { errs[i] = fn(i, m) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
