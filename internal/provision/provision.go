// Package provision starts and stops isolated mcec instances: each one a separate `mcec serve
// --headless` process with its own private desktop, its own loopback port and a fresh bearer
// token. Instance metadata (never the token, only its hash) lives in a per-user runtime
// directory, so a later mcec can reap what a crashed one left behind.
package provision

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcec/mcec/internal/procgroup"
)

// Defaults.
const (
	// DefaultMaxInstances bounds concurrent instances per provisioning server: each one is a
	// desktop (Xvfb, D-Bus, AT-SPI, openbox) plus an mcec, about 40 MB PSS and 0.3 % of a core
	// idle (docs/scale.md); 8 leave a 2-core machine room for their apps and the agent's calls.
	DefaultMaxInstances = 8
	// DefaultMaxAge is how old an instance may get before the reaper stops it.
	DefaultMaxAge = 12 * time.Hour
	// DefaultStartTimeout bounds how long a new instance may take to report readiness.
	DefaultStartTimeout = 60 * time.Second
	// DefaultGrace is how long a stopping instance gets after SIGTERM before SIGKILL.
	DefaultGrace = 10 * time.Second
	// reapInterval is how often a running manager looks for stale instances.
	reapInterval = 10 * time.Minute
)

// maxSocketPath is the longest Unix socket path every platform takes (sun_path is 104 bytes on
// the BSDs, 108 on Linux, both counting the terminating NUL).
const maxSocketPath = 103

// EnvInstance marks an instance's process environment with its id; the reaper kills a
// recorded pid only when /proc/PID/environ still carries the mark (the pid may have been reused).
const EnvInstance = "MCEC_INSTANCE"

// Errors. Provision's other failures wrap ErrStart.
var (
	ErrLimit        = errors.New("instance limit reached")
	ErrStart        = errors.New("instance did not start")
	ErrTokenInvalid = errors.New("token does not match the instance")
	ErrBadID        = errors.New("not an instance id")
	ErrClosed       = errors.New("provisioning manager closed")
)

var idPattern = regexp.MustCompile(`^inst-[0-9a-f]{16}$`)

// ValidID reports whether id has the shape Provision mints (it names a directory).
func ValidID(id string) bool { return idPattern.MatchString(id) }

// Options configure a Manager. Zero values take the defaults.
type Options struct {
	// Binary is the mcec executable to start (default: os.Executable()).
	Binary string
	// Dir is the instances directory (default: RuntimeDir()).
	Dir string
	// SessionsDir is passed to instances as --sessions-dir ("" leaves their default).
	SessionsDir string
	// Launch lists programs each instance starts inside its desktop (--launch, one per entry,
	// split on spaces there). provision-session leaves it empty; the density bench sets it.
	Launch []string
	// ServeArgs are further flags for `mcec serve` (e.g. --no-glx, --screen).
	ServeArgs []string
	// Console starts each instance with an operator console of its own on a free loopback port
	// (the provisioning server's console lists them and opens theirs; issue 25's fleet).
	Console bool
	// Env is the base environment of instances (default os.Environ()); the display, the bus
	// and every MCEC_* variable are removed from it.
	Env          []string
	MaxInstances int
	// MaxStarting bounds how many instances start at once (default: the number of CPUs, at least
	// 2). A desktop's start is CPU-bound (about 0.4-0.5 CPU-seconds: Xvfb, openbox, mcec), so
	// starting 16 on 2 cores at once makes every one of them slow, and some miss their deadline;
	// queued, most are ready sooner (docs/scale.md). Time spent queued counts against
	// StartTimeout.
	MaxStarting int
	// Warm is how many started instances the manager keeps ready to hand out (0: none), so
	// Provision answers at once instead of after a desktop's start. They count against
	// MaxInstances and cost an idle instance's memory each (docs/scale.md).
	Warm         int
	StartTimeout time.Duration
	Grace        time.Duration
	Log          *slog.Logger
	// IsInstance reports whether pid is still the instance id (default: its environment
	// carries EnvInstance=id). Only the reaper asks; tests may replace it.
	IsInstance func(pid int, id string) bool
}

// Instance is how to reach a provisioned instance.
type Instance struct {
	ID      string
	Token   string
	Port    int
	PID     int
	Started time.Time
	Dir     string
	Binary  string
	// ConsolePort and Control: its operator console's port and its control socket (the way to
	// a login link for that console); zero without Options.Console.
	ConsolePort int
	Control     string
}

// Info is a live instance as the operator's console lists it: never its token.
type Info struct {
	ID          string
	PID         int
	Port        int
	Started     time.Time
	ConsolePort int
	Control     string
	// Warm: started for the warm pool, not handed to an agent yet.
	Warm bool
}

// BaseURL is http://127.0.0.1:PORT.
func (i Instance) BaseURL() string { return "http://127.0.0.1:" + strconv.Itoa(i.Port) }

// MCPEndpoint is the instance's MCP streamable HTTP endpoint.
func (i Instance) MCPEndpoint() string { return i.BaseURL() + "/mcp" }

// record is instance.json: what a later mcec needs to reap the instance. The token itself is
// never written, only its SHA-256.
type record struct {
	ID        string    `json:"id"`
	PID       int       `json:"pid"`
	Port      int       `json:"port,omitempty"`
	Started   time.Time `json:"started"`
	TokenHash string    `json:"tokenSha256"`
	ParentPID int       `json:"parentPid"`
	// ConsolePort and Control: see Instance.
	ConsolePort int    `json:"consolePort,omitempty"`
	Control     string `json:"control,omitempty"`
}

const recordFile = "instance.json"

// running is an instance this manager started; done closes once it has been reaped.
type running struct {
	rec  record
	done <-chan struct{} // closed once the instance has been reaped
}

// Manager starts, ends and reaps instances. It is safe for concurrent use.
type Manager struct {
	opt Options
	log *slog.Logger

	mu      sync.Mutex
	live    map[string]*running
	pending int // instances starting (Provision and warm-pool fills)
	// pool are started instances nobody has been handed yet (Options.Warm); they are live too.
	pool    []Instance
	filling int // warm-pool starts in progress (counted in pending too)
	// starting holds a slot per instance between its start and its readiness report.
	starting chan struct{}
	closed   bool
	stop     chan struct{}
	wg       sync.WaitGroup
}

// NewManager prepares the instances directory, reaps stale instances left by earlier servers
// and starts the periodic reaper.
func NewManager(opt Options) (*Manager, error) {
	if opt.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("provisioning: find the mcec binary: %w", err)
		}
		opt.Binary = exe
	}
	if opt.Dir == "" {
		opt.Dir = RuntimeDir()
	}
	if opt.Env == nil {
		opt.Env = os.Environ()
	}
	if opt.MaxInstances <= 0 {
		opt.MaxInstances = DefaultMaxInstances
	}
	if opt.MaxStarting <= 0 {
		opt.MaxStarting = max(2, runtime.NumCPU())
	}
	if opt.StartTimeout <= 0 {
		opt.StartTimeout = DefaultStartTimeout
	}
	if opt.Grace <= 0 {
		opt.Grace = DefaultGrace
	}
	if opt.IsInstance == nil {
		opt.IsInstance = isInstance
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if err := privateDir(opt.Dir); err != nil {
		return nil, fmt.Errorf("provisioning: %w", err)
	}
	m := &Manager{opt: opt, log: opt.Log, live: map[string]*running{}, stop: make(chan struct{}),
		starting: make(chan struct{}, opt.MaxStarting)}
	m.Reap(DefaultMaxAge)
	m.wg.Add(1)
	go m.reapLoop()
	m.refill()
	return m, nil
}

func (m *Manager) reapLoop() {
	defer m.wg.Done()
	t := time.NewTicker(reapInterval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.Reap(DefaultMaxAge)
		}
	}
}

// Dir is the instances directory.
func (m *Manager) Dir() string { return m.opt.Dir }

// Pooled is how many warm instances wait to be handed out.
func (m *Manager) Pooled() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pool)
}

// List is the live instances, oldest first.
func (m *Manager) List() []Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	warm := map[string]bool{}
	for _, inst := range m.pool {
		warm[inst.ID] = true
	}
	out := make([]Info, 0, len(m.live))
	for id, r := range m.live {
		if isDone(r.done) {
			continue // died; the next Reap or End clears it away
		}
		out = append(out, Info{ID: id, PID: r.rec.PID, Port: r.rec.Port, Started: r.rec.Started,
			ConsolePort: r.rec.ConsolePort, Control: r.rec.Control, Warm: warm[id]})
	}
	slices.SortFunc(out, func(a, b Info) int { return cmp.Or(a.Started.Compare(b.Started), strings.Compare(a.ID, b.ID)) })
	return out
}

// MaxInstances is the concurrent instance limit.
func (m *Manager) MaxInstances() int { return m.opt.MaxInstances }

// Provision hands out a warm instance when the pool has one (Options.Warm), else starts a new
// instance and waits (up to StartTimeout, or ctx) until it serves.
func (m *Manager) Provision(ctx context.Context) (inst Instance, err error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return Instance{}, ErrClosed
	}
	for len(m.pool) > 0 {
		inst := m.pool[0]
		m.pool = m.pool[1:]
		r := m.live[inst.ID]
		if r == nil || isDone(r.done) {
			// It died (or was reaped) while it waited: clear it away and try the next.
			delete(m.live, inst.ID)
			m.mu.Unlock()
			if r != nil {
				m.terminate(r)
			}
			_ = os.RemoveAll(inst.Dir)
			m.mu.Lock()
			continue
		}
		m.mu.Unlock()
		m.log.Info("instance provisioned from the warm pool", "instance", inst.ID, "pid", inst.PID, "port", inst.Port)
		m.refill()
		return inst, nil
	}
	if len(m.live)+m.pending >= m.opt.MaxInstances {
		m.mu.Unlock()
		return Instance{}, fmt.Errorf("%w: %d instances are running (limit %d); end one with end-session first", ErrLimit, len(m.live)+m.pending, m.opt.MaxInstances)
	}
	m.pending++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.pending--
		m.mu.Unlock()
		m.refill()
	}()
	return m.start(ctx)
}

// refill starts instances for the warm pool until it holds Options.Warm (within MaxInstances).
// Each start runs in the background; a failed one is logged, and the next Provision tries again.
func (m *Manager) refill() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for !m.closed && len(m.pool)+m.filling < m.opt.Warm && len(m.live)+m.pending < m.opt.MaxInstances {
		m.filling++
		m.pending++
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				select {
				case <-m.stop: // Close: abandon the start (start stops what it began)
					cancel()
				case <-ctx.Done():
				}
			}()
			inst, err := m.start(ctx)
			cancel()
			m.mu.Lock()
			m.filling--
			m.pending--
			if err == nil {
				m.pool = append(m.pool, inst)
			}
			m.mu.Unlock()
			if err != nil {
				m.log.Warn("warm pool: an instance did not start", "err", err)
			}
		}()
	}
}

func isDone(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// start starts one instance and waits until it serves; it is then live.
func (m *Manager) start(ctx context.Context) (Instance, error) {
	deadline := time.Now().Add(m.opt.StartTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	// Wait for a start slot (bounded by the same deadline as the start itself).
	slotCtx, cancelSlot := context.WithDeadline(ctx, deadline)
	select {
	case m.starting <- struct{}{}:
		cancelSlot()
	case <-slotCtx.Done():
		cancelSlot()
		if ctx.Err() != nil {
			return Instance{}, fmt.Errorf("%w: cancelled while waiting for a start slot: %v", ErrStart, ctx.Err())
		}
		return Instance{}, fmt.Errorf("%w: no start slot before the start deadline (%d instances starting at once at most)", ErrStart, m.opt.MaxStarting)
	}
	defer func() { <-m.starting }()

	id, token := "inst-"+randomHex(8), randomHex(16)
	dir := filepath.Join(m.opt.Dir, id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return Instance{}, fmt.Errorf("%w: %v", ErrStart, err)
	}
	fail := func(r *running, format string, a ...any) (Instance, error) {
		if r != nil {
			m.terminate(r)
		}
		reason := fmt.Sprintf(format, a...)
		if tail := logTail(filepath.Join(dir, "instance.log")); tail != "" {
			reason += "; its log ends: " + tail
		}
		_ = os.RemoveAll(dir)
		return Instance{}, fmt.Errorf("%w: %s", ErrStart, reason)
	}

	logf, err := os.OpenFile(filepath.Join(dir, "instance.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fail(nil, "%v", err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		logf.Close()
		return fail(nil, "%v", err)
	}
	defer readyR.Close()
	args := []string{"serve", "--headless", "--bind", "127.0.0.1", "--port", "0", "--tcp=false",
		// Its desktop is private: the standard tool set is on. No nested provisioning.
		"--allow-agent", "--allow-provisioning=false", "--ready-fd", "3"}
	if m.opt.SessionsDir != "" {
		args = append(args, "--sessions-dir", m.opt.SessionsDir)
	}
	if sock := filepath.Join(dir, "control.sock"); len(sock) <= maxSocketPath {
		// In its own directory, not beside the operator's servers' sockets: `mcec rearm` and
		// `mcec consent` then find the operator's server alone, and the reaper removes it.
		args = append(args, "--control-socket", sock)
	}
	if m.opt.Console {
		args = append(args, "--console", "--console-port", "0")
	}
	for _, l := range m.opt.Launch {
		args = append(args, "--launch", l)
	}
	args = append(args, m.opt.ServeArgs...)
	cmd := exec.Command(m.opt.Binary, args...)
	cmd.Env = childEnv(m.opt.Env, id, token)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{readyW}
	// Its own process group (End signals the group); SIGTERM when the provisioning server dies.
	p, startErr := procgroup.Start(cmd, syscall.SIGTERM)
	readyW.Close()
	logf.Close()
	if startErr != nil {
		return fail(nil, "start %s: %v", m.opt.Binary, startErr)
	}
	r := &running{done: p.Done(), rec: record{ID: id, PID: p.PID, Started: time.Now().UTC(),
		TokenHash: hashToken(token), ParentPID: os.Getpid()}}
	// Recorded before readiness, so a crash of this server while the instance starts still
	// leaves something to reap.
	if err := writeRecord(dir, r.rec); err != nil {
		return fail(r, "write %s: %v", recordFile, err)
	}

	ready, err := readReady(ctx, readyR, deadline)
	if err == nil && m.opt.Console && (ready.ConsolePort == 0 || ready.Control == "") {
		err = fmt.Errorf("its readiness report names no console (%+v)", ready)
	}
	if err != nil {
		return fail(r, "%v", err)
	}
	port := ready.Port
	r.rec.Port, r.rec.ConsolePort, r.rec.Control = port, ready.ConsolePort, ready.Control
	if err := writeRecord(dir, r.rec); err != nil {
		return fail(r, "write %s: %v", recordFile, err)
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return fail(r, "the provisioning server is shutting down")
	}
	m.live[id] = r
	m.mu.Unlock()
	m.log.Info("instance provisioned", "instance", id, "pid", r.rec.PID, "port", port)
	return Instance{ID: id, Token: token, Port: port, PID: r.rec.PID, Started: r.rec.Started, Dir: dir, Binary: m.opt.Binary,
		ConsolePort: ready.ConsolePort, Control: ready.Control}, nil
}

// Ready is the line `mcec serve --ready-fd` writes once it serves.
type Ready struct {
	Port int `json:"port"`
	// ConsolePort and Control: its operator console's port and its control socket, when it
	// serves a console.
	ConsolePort int    `json:"consolePort,omitempty"`
	Control     string `json:"control,omitempty"`
}

// readReady waits for the instance's readiness line. EOF means the instance exited (or closed
// the pipe) without serving.
func readReady(ctx context.Context, r *os.File, deadline time.Time) (Ready, error) {
	if err := r.SetReadDeadline(deadline); err != nil {
		return Ready{}, err
	}
	stop := context.AfterFunc(ctx, func() { _ = r.SetReadDeadline(time.Now()) })
	defer stop()
	line, err := bufio.NewReader(r).ReadString('\n')
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		if ctx.Err() != nil {
			return Ready{}, fmt.Errorf("cancelled while the instance started: %w", ctx.Err())
		}
		return Ready{}, errors.New("no readiness report before the start deadline")
	case err != nil:
		return Ready{}, errors.New("the instance exited before it served")
	}
	var rl Ready
	if err := json.Unmarshal([]byte(line), &rl); err != nil || rl.Port <= 0 || rl.Port > 65535 ||
		rl.ConsolePort < 0 || rl.ConsolePort > 65535 || (rl.Control != "" && !filepath.IsAbs(rl.Control)) {
		return Ready{}, fmt.Errorf("malformed readiness report %q", strings.TrimSpace(line))
	}
	return rl, nil
}

// EndResult says what End did.
type EndResult struct {
	// Ended is true when this call stopped the instance.
	Ended bool
	// AlreadyGone is true when no such instance was running (unknown, or ended before).
	AlreadyGone bool
}

// End stops instance id after checking token (constant-time, against the stored hash), and
// removes its directory. An unknown or already ended id is not an error: AlreadyGone.
func (m *Manager) End(id, token string) (EndResult, error) {
	if !ValidID(id) {
		return EndResult{}, ErrBadID
	}
	m.mu.Lock()
	r := m.live[id]
	m.mu.Unlock()
	dir := filepath.Join(m.opt.Dir, id)
	if r == nil {
		// Perhaps a leftover of another (crashed) server: the record and the token still decide.
		rec, err := readRecord(dir)
		if err != nil {
			return EndResult{AlreadyGone: true}, nil
		}
		if !tokenMatches(rec.TokenHash, token) {
			return EndResult{}, ErrTokenInvalid
		}
		ended := m.stopForeign(rec)
		_ = os.RemoveAll(dir)
		return EndResult{Ended: ended, AlreadyGone: !ended}, nil
	}
	if !tokenMatches(r.rec.TokenHash, token) {
		return EndResult{}, ErrTokenInvalid
	}
	m.mu.Lock()
	if m.live[id] != r { // a concurrent End won
		m.mu.Unlock()
		<-r.done
		return EndResult{AlreadyGone: true}, nil
	}
	delete(m.live, id)
	m.mu.Unlock()
	m.terminate(r)
	_ = os.RemoveAll(dir)
	m.log.Info("instance ended", "instance", id, "pid", r.rec.PID)
	return EndResult{Ended: true}, nil
}

// Reap stops and removes instances older than maxAge, and records whose instance is gone or
// whose provisioning server is gone (orphans a crash left behind).
func (m *Manager) Reap(maxAge time.Duration) {
	entries, err := os.ReadDir(m.opt.Dir)
	if err != nil {
		return
	}
	now := time.Now()
	for _, e := range entries {
		if !e.IsDir() || !ValidID(e.Name()) {
			continue
		}
		id, dir := e.Name(), filepath.Join(m.opt.Dir, e.Name())
		m.mu.Lock()
		r := m.live[id]
		if r != nil && now.Sub(r.rec.Started) > maxAge {
			delete(m.live, id)
		} else if r != nil {
			r = nil // ours and young: keep
			m.mu.Unlock()
			continue
		}
		pending := m.pending > 0
		m.mu.Unlock()
		if r != nil {
			m.log.Info("reaping an old instance", "instance", id, "pid", r.rec.PID)
			m.terminate(r)
			_ = os.RemoveAll(dir)
			continue
		}
		rec, err := readRecord(dir)
		if err != nil {
			// No record: a Provision of this server may be writing it; otherwise debris.
			if info, serr := os.Stat(dir); serr == nil && !pending && now.Sub(info.ModTime()) > time.Minute {
				_ = os.RemoveAll(dir)
			}
			continue
		}
		if rec.ParentPID == os.Getpid() {
			continue // being provisioned by this server right now
		}
		alive := m.opt.IsInstance(rec.PID, rec.ID)
		orphan := rec.ParentPID > 0 && !processExists(rec.ParentPID)
		if alive && now.Sub(rec.Started) <= maxAge && !orphan {
			continue // another live server's young instance
		}
		m.log.Info("reaping a stale instance", "instance", id, "pid", rec.PID, "alive", alive, "orphan", orphan)
		if alive {
			m.stopForeign(rec)
		}
		_ = os.RemoveAll(dir)
	}
}

// Close stops every instance this manager started (by PID, waiting until each is reaped) and
// the periodic reaper. It is idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	close(m.stop)
	live := m.live
	m.live = map[string]*running{}
	m.pool = nil
	m.mu.Unlock()
	m.wg.Wait()
	var wg sync.WaitGroup
	for id, r := range live {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.terminate(r)
			_ = os.RemoveAll(filepath.Join(m.opt.Dir, id))
		}()
	}
	wg.Wait()
	return nil
}

// terminate stops an instance this manager started: SIGTERM to its process group, SIGKILL
// after the grace period, and waits until it has been reaped.
func (m *Manager) terminate(r *running) {
	if procgroup.Stop(r.rec.PID, r.done, m.opt.Grace) {
		m.log.Warn("instance ignored SIGTERM; killed it", "instance", r.rec.ID, "pid", r.rec.PID)
	}
}

// childEnv is base without the display, the bus and MCEC_* settings, plus the instance's id
// and token. The token travels by environment because argv is visible to every user (ps).
func childEnv(base []string, id, token string) []string {
	out := make([]string, 0, len(base)+3)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if k == "DISPLAY" || k == "WAYLAND_DISPLAY" || k == "DBUS_SESSION_BUS_ADDRESS" || strings.HasPrefix(k, "MCEC_") {
			continue
		}
		out = append(out, kv)
	}
	// MCEC_HTTP: a config.toml that switches the listener off must not break the instance.
	return append(out, EnvInstance+"="+id, "MCEC_TOKEN="+token, "MCEC_HTTP=true")
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand panics internally rather than return short)
	return hex.EncodeToString(b)
}

func hashToken(token string) string {
	s := sha256.Sum256([]byte(token))
	return hex.EncodeToString(s[:])
}

// tokenMatches compares token's hash with the stored one in constant time.
func tokenMatches(storedHash, token string) bool {
	want, err := hex.DecodeString(storedHash)
	if err != nil || len(want) != sha256.Size {
		return false
	}
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(want, got[:]) == 1
}

// logTail is the last line or so of the instance's log, for a failure's detail.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}
