package evidence

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mcec/mcec/internal/atomicfile"
	"github.com/mcec/mcec/internal/platform"
)

// Environment is the content of environment.json: what a reader of a bundle needs to know about
// the machine and desktop the session ran on. It deliberately holds no environment variables,
// host names, user names or tokens.
type Environment struct {
	MCECVersion   string         `json:"mcecVersion"`
	GoVersion     string         `json:"goVersion"`
	OS            OSInfo         `json:"os"`
	Desktop       string         `json:"desktop,omitempty"` // "private" (headless) or "attached"
	VirtualBounds *platform.Rect `json:"virtualBounds,omitempty"`
	Displays      []DisplayInfo  `json:"displays,omitempty"`
	WindowManager string         `json:"windowManager,omitempty"`
	Toolkits      []ToolkitInfo  `json:"toolkits"`
	ProbedAt      time.Time      `json:"probedAt"`
	ProbeErrors   []string       `json:"probeErrors,omitempty"`
}

// OSInfo names the operating system.
type OSInfo struct {
	GOOS   string `json:"goos"`
	GOARCH string `json:"goarch"`
	Name   string `json:"name,omitempty"`   // /etc/os-release PRETTY_NAME
	Kernel string `json:"kernel,omitempty"` // kernel release
}

// DisplayInfo is one monitor.
type DisplayInfo struct {
	Name    string        `json:"name"`
	Primary bool          `json:"primary"`
	Bounds  platform.Rect `json:"bounds"`
	DPI     float64       `json:"dpi"`
	Scale   float64       `json:"scale"`
}

// ToolkitInfo is one toolkit version seen on the accessibility bus, with the applications that
// reported it.
type ToolkitInfo struct {
	Toolkit string   `json:"toolkit"`
	Version string   `json:"version,omitempty"`
	Apps    []string `json:"apps,omitempty"`
}

// probe refreshes environment.json in the background; lg.mu is held (only to read state).
func (r *Recorder) probe(lg *sessionLog) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.pending.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.pending.Done()
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		fresh := r.readEnvironment(ctx)
		lg.mu.Lock()
		defer lg.mu.Unlock()
		lg.env = mergeEnvironment(lg.env, fresh)
		b, err := json.MarshalIndent(lg.env, "", "  ")
		if err != nil {
			return
		}
		if err := atomicfile.WriteFile(filepath.Join(lg.dir, EnvironmentFile), append(b, '\n'), 0o600); err != nil {
			r.log.Warn("evidence: environment.json not written", "session", lg.id, "err", err)
		}
	}()
}

// readEnvironment reads what the desktop can tell now.
func (r *Recorder) readEnvironment(ctx context.Context) *Environment {
	e := &Environment{MCECVersion: r.opts.Version, GoVersion: runtime.Version(), Desktop: r.opts.Desktop,
		OS:       OSInfo{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Name: osName(), Kernel: kernelRelease()},
		ProbedAt: r.now().UTC(), Toolkits: []ToolkitInfo{}}
	p := r.opts.Probe
	if p == nil {
		return e
	}
	if d, err := p.Displays(ctx); err != nil {
		e.ProbeErrors = append(e.ProbeErrors, "displays: "+err.Error())
	} else {
		vb := d.VirtualBounds
		e.VirtualBounds = &vb
		for _, m := range d.Monitors {
			e.Displays = append(e.Displays, DisplayInfo{Name: m.Name, Primary: m.Primary, Bounds: m.Bounds, DPI: m.DPI, Scale: m.Scale})
		}
	}
	if wm, err := p.WindowManager(ctx); err != nil {
		e.ProbeErrors = append(e.ProbeErrors, "window manager: "+err.Error())
	} else {
		e.WindowManager = wm
	}
	apps, err := p.Apps(ctx)
	if err != nil {
		e.ProbeErrors = append(e.ProbeErrors, "accessibility bus: "+err.Error())
	}
	for _, a := range apps {
		if a.Err != nil || a.Toolkit == "" {
			continue
		}
		e.addToolkit(a.Toolkit, a.ToolkitVersion, a.Name)
	}
	return e
}

func (e *Environment) addToolkit(toolkit, version, app string) {
	i := slices.IndexFunc(e.Toolkits, func(t ToolkitInfo) bool { return t.Toolkit == toolkit && t.Version == version })
	if i < 0 {
		e.Toolkits = append(e.Toolkits, ToolkitInfo{Toolkit: toolkit, Version: version})
		i = len(e.Toolkits) - 1
	}
	t := &e.Toolkits[i]
	if app != "" && !slices.Contains(t.Apps, app) {
		t.Apps = append(t.Apps, app)
		slices.Sort(t.Apps)
	}
}

// mergeEnvironment keeps every toolkit ever seen in the session: apps come and go.
func mergeEnvironment(old, fresh *Environment) *Environment {
	if old == nil {
		return fresh
	}
	for _, t := range old.Toolkits {
		if len(t.Apps) == 0 {
			fresh.addToolkit(t.Toolkit, t.Version, "")
		}
		for _, a := range t.Apps {
			fresh.addToolkit(t.Toolkit, t.Version, a)
		}
	}
	if fresh.WindowManager == "" {
		fresh.WindowManager = old.WindowManager
	}
	if fresh.Displays == nil {
		fresh.Displays, fresh.VirtualBounds = old.Displays, old.VirtualBounds
	}
	return fresh
}

func osName() string {
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
