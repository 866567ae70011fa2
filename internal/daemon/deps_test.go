package daemon

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layering of docs/design.md, checked on every package's transitive dependencies (what a
// package reaches through others counts as much as what it imports): imports point one way,
// and only the composition root (this package) and the CLI assemble everything.

const module = "github.com/mcec/mcec/"

// pkgInfo is one package of the module as go list sees it (non-test files only).
type pkgInfo struct {
	rel   string   // path inside the module
	dir   string   // directory on disk
	files []string // non-test Go files
	deps  []string // module packages it depends on, transitively, relative paths
}

func listPackages(t *testing.T) []pkgInfo {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{.Dir}}|{{join .GoFiles ","}}|{{join .Deps " "}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkgInfo
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "|", 4)
		p := pkgInfo{rel: strings.TrimPrefix(f[0], module), dir: f[1]}
		if f[2] != "" {
			p.files = strings.Split(f[2], ",")
		}
		for _, d := range strings.Fields(f[3]) {
			if rel, ok := strings.CutPrefix(d, module); ok {
				p.deps = append(p.deps, rel)
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// rule is a package's place in the layering. It applies to the package it is keyed by and to
// its subpackages that have no rule of their own.
type rule struct {
	// bans are module path prefixes the package must not depend on ("internal/platform/" is
	// the backends below the interface, "internal/platform" the interface too).
	bans []string
	// only, when set, lists every module package it may depend on (exact paths).
	only []string
}

// Product layers.
var (
	toolsUp    = []string{"internal/tools", "internal/dispatch", "internal/transport", "internal/daemon", "internal/cli"}
	backends   = "internal/platform/" // x11, atspi, linux, fake: only the composition root picks one
	everything = []string{"internal/"}
)

// rules holds one entry for every package (or tree of packages): a package that none covers
// fails the test, so a new package cannot join without a decision about its place.
var rules = map[string]rule{
	"cmd":                {},
	"contract":           {bans: everything},
	"internal/cli":       {},
	"internal/daemon":    {bans: []string{"internal/cli"}},
	"internal/transport": {bans: []string{"internal/tools", "internal/platform", "internal/daemon", "internal/cli"}},
	"internal/dispatch":  {bans: []string{"internal/tools", "internal/transport", "internal/platform", "internal/daemon", "internal/cli"}},
	"internal/catalog":   {bans: []string{"internal/tools", "internal/dispatch", "internal/transport", "internal/platform", "internal/daemon", "internal/cli"}},
	"internal/tools":     {bans: append([]string{backends}, toolsUp[1:]...)},
	"internal/session":   {bans: []string{"internal/tools", "internal/catalog", "internal/dispatch", "internal/transport", "internal/platform", "internal/daemon", "internal/cli"}},
	"internal/evidence":  {bans: []string{"internal/tools", "internal/transport", backends, "internal/daemon", "internal/cli"}},
	// Replay reads what the recorder wrote (the bundle); the recorder cannot import it back
	// (Go forbids the cycle), so it stays out of the dispatcher's observer path.
	// The trace viewer reads evidence and renders it; it neither acts nor serves.
	"internal/traceview":       {bans: []string{"internal/tools", "internal/transport", backends, "internal/daemon", "internal/cli", "internal/console"}},
	"internal/calldesc":        {bans: everything},
	"internal/evidence/replay": {bans: []string{"internal/tools", "internal/transport", backends, "internal/daemon", "internal/cli"}},
	"internal/safety":          {bans: []string{"internal/tools", "internal/transport", backends, "internal/daemon", "internal/cli"}},
	"internal/consent":         {bans: []string{"internal/tools", "internal/dispatch", "internal/transport", "internal/platform", "internal/daemon", "internal/cli"}},
	"internal/estop":           {bans: []string{"internal/tools", "internal/catalog", "internal/dispatch", "internal/transport", "internal/platform", "internal/session", "internal/daemon", "internal/cli"}},
	"internal/inputgate":       {only: []string{"contract", "internal/platform"}},
	"internal/rawcmd":          {only: []string{"contract"}},
	"internal/rawcmd/queue":    {only: []string{"contract", "internal/errmap", "internal/inputgate", "internal/platform", "internal/rawcmd"}},
	"internal/errmap":          {only: []string{"contract"}},
	// The take-over is a freeze of the admission chain and a hold of the input gate; it knows
	// no tool, transport or desktop, so the console can drive it.
	"internal/takeover":              {bans: []string{"internal/tools", "internal/dispatch", "internal/transport", "internal/platform", "internal/inputgate", "internal/daemon", "internal/cli", "internal/console"}},
	"internal/admission":             {bans: []string{"internal/tools", "internal/dispatch", "internal/transport", "internal/safety", "internal/consent", "internal/estop", "internal/daemon", "internal/cli"}},
	"internal/provision":             {bans: append([]string{"internal/platform", "internal/catalog", "internal/session"}, toolsUp...)},
	"internal/screencast":            {bans: append([]string{"internal/platform", "internal/catalog", "internal/session"}, toolsUp...)},
	"internal/ocr":                   {bans: append([]string{"internal/platform", "internal/catalog", "internal/session"}, toolsUp...)},
	"internal/doctor":                {bans: append([]string{"internal/catalog", "internal/session"}, toolsUp...)},
	"internal/platform":              {bans: []string{"internal/tools", "internal/catalog", "internal/dispatch", "internal/transport", "internal/session", "internal/daemon", "internal/cli"}},
	"internal/platform/fake":         {only: []string{"contract", "internal/platform"}},
	"internal/platform/platformtest": {only: []string{"contract", "internal/platform"}},
	"internal/headless":              {bans: []string{"internal/tools", "internal/catalog", "internal/dispatch", "internal/transport", "internal/platform", "internal/daemon", "internal/cli"}},
	"internal/imaging":               {bans: everything},
	"internal/progress":              {bans: everything},
	"internal/a11yenv":               {bans: everything},
	"internal/control":               {only: []string{"internal/atomicfile", "internal/paths"}},
	"internal/agentguide":            {bans: everything},
	"internal/atomicfile":            {bans: everything},
	"internal/paths":                 {bans: everything},
	"internal/sysload":               {bans: everything},
	"internal/procgroup":             {bans: everything},
	"internal/framepool":             {bans: everything},
	"internal/xgbext":                {bans: everything},
	"internal/xinput2":               {bans: everything},
	"internal/heldinput":             {only: []string{"internal/xinput2", "internal/xgbext"}},
	"internal/keysym":                {bans: everything},
	"internal/procname":              {bans: everything},
	"internal/gnomeext":              {bans: everything},
	// The Wayland client side (wire protocol, protocol tables, compositor IPC) knows nothing of mcec.
	"internal/wayland": {only: []string{"internal/wayland/wire"}},
	// The desktop portal's client knows nothing of mcec either.
	"internal/portal": {bans: everything},
	// Test fixtures, test suites and developer tooling: anything may be below them, and the
	// product may not depend on them (fixtures below).
	"internal/testdesk":  {},
	"internal/suitedesk": {},
	"internal/reach":     {},
	"internal/tasks":     {},
	"internal/dev":       {}, // developer tooling (devTools below)
	"deploy/container":   {}, // the container recipe's tests
	"internal/soak":      {},
	// The operator console sees calls as the dispatcher reports them and drives the stop's latch;
	// it never reaches tools, the desktop or the agents' transports.
	"internal/console": {bans: []string{"internal/tools", "internal/transport", "internal/platform", "internal/daemon", "internal/cli"}},
}

// fixtures are test fixtures, which the shipped binary must not contain (developer tooling is
// kept out by devTools).
var fixtures = []string{"contract/contracttest", "internal/testdesk", "internal/suitedesk", "internal/reach", "internal/tasks",
	"internal/soak", "deploy/container", "internal/platform/fake", "internal/platform/platformtest", "internal/daemon/daemontest"}

// devTools is developer tooling (benchmarks, measurements), kept apart from the product: no
// package depends on it but other developer tooling and the commands that run it.
const devTools = "internal/dev/"

var devCommands = []string{"cmd/mcec-bench"}

// ruleFor is the most specific rule covering rel.
func ruleFor(rel string) (string, rule, bool) {
	best := ""
	for k := range rules {
		if (rel == k || strings.HasPrefix(rel, k+"/")) && len(k) > len(best) {
			best = k
		}
	}
	r, ok := rules[best]
	return best, r, ok
}

func TestImportGraph(t *testing.T) {
	for _, p := range listPackages(t) {
		owner, r, ok := ruleFor(p.rel)
		if !ok {
			t.Errorf("%s has no place in the layering: give it a rule in internal/daemon/deps_test.go", p.rel)
			continue
		}
		for _, dep := range p.deps {
			if strings.HasPrefix(dep, devTools) && !strings.HasPrefix(p.rel, devTools) && !slices.Contains(devCommands, p.rel) {
				t.Errorf("%s depends on %s: only developer tooling (%s...) and %s may use developer tooling", p.rel, dep, devTools, strings.Join(devCommands, ", "))
			}
			for _, ban := range r.bans {
				if strings.HasPrefix(dep, ban) && !strings.HasPrefix(dep, owner+"/") {
					t.Errorf("%s depends on %s (layering forbids %s → %s)", p.rel, dep, owner, ban)
				}
			}
			if r.only != nil && !slices.Contains(r.only, dep) {
				t.Errorf("%s depends on %s; %s may depend only on %s", p.rel, dep, owner, strings.Join(r.only, ", "))
			}
		}
		if p.rel == "cmd/mcec" {
			for _, dep := range p.deps {
				if slices.Contains(fixtures, dep) {
					t.Errorf("the mcec binary contains %s, a test fixture or developer tool", dep)
				}
			}
		}
	}
}

// The raw command queue reaches the hands only through the input gate: its allowed
// dependencies (rules above) hold no backend and no X client, and the desktop it is given
// (queue.Screen) cannot send input, so input comes from the gate's hold. This checks the gate is
// there.
func TestRawCommandsHoldTheGate(t *testing.T) {
	for _, p := range listPackages(t) {
		if p.rel != "internal/rawcmd/queue" {
			continue
		}
		if !slices.Contains(p.deps, "internal/inputgate") {
			t.Errorf("internal/rawcmd/queue does not use internal/inputgate: its input bypasses the gate")
		}
		return
	}
	t.Fatal("no internal/rawcmd/queue package")
}

// transports are the packages that may serve a network protocol and start the TCP line server.
var transports = []string{"internal/transport", "internal/cli"}

// operatorSurfaces serve people, not agents, on their own loopback port: they reach no tool (the
// console's dependency rule bans internal/tools and the transports), only what the dispatcher
// reports and the emergency stop.
var operatorSurfaces = []string{"internal/console"}

// developerTools may listen on TCP for their own measurements, and test fixtures (fixtures) to
// find a free port.
var developerTools = []string{"internal/dev"}

func isUnder(rel string, roots []string) bool {
	return slices.ContainsFunc(roots, func(r string) bool { return rel == r || strings.HasPrefix(rel, r+"/") })
}

// Only transports start the TCP line server (line.Listen, line.Server) and only they open
// TCP listeners at all: the agent surface is served where the transports' gates are.
func TestOnlyTransportsServe(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range listPackages(t) {
		for _, name := range p.files {
			path := filepath.Join(p.dir, name)
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]string{} // local name → import path
			for _, imp := range f.Imports {
				ip, _ := strconv.Unquote(imp.Path.Value)
				local := ip[strings.LastIndex(ip, "/")+1:]
				if imp.Name != nil {
					local = imp.Name.Name
				}
				names[local] = ip
			}
			rel := p.rel + "/" + name
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					x, ok := n.X.(*ast.Ident)
					if !ok || names[x.Name] != module+"internal/transport/line" {
						return true
					}
					switch n.Sel.Name {
					case "Listen", "Server", "ServerOptions":
						if !isUnder(p.rel, transports) {
							t.Errorf("%s: %s uses the TCP line server (line.%s); only transports (%s) may", fset.Position(n.Pos()), rel, n.Sel.Name, strings.Join(transports, ", "))
						}
					}
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok || len(n.Args) == 0 {
						return true
					}
					x, ok := sel.X.(*ast.Ident)
					if !ok || names[x.Name] != "net" || (sel.Sel.Name != "Listen" && sel.Sel.Name != "ListenTCP") {
						return true
					}
					if lit, ok := n.Args[0].(*ast.BasicLit); ok && strings.HasPrefix(lit.Value, `"tcp`) &&
						!isUnder(p.rel, transports) && !isUnder(p.rel, operatorSurfaces) && !isUnder(p.rel, developerTools) && !isUnder(p.rel, fixtures) {
						t.Errorf("%s: a TCP listener outside the transports", fset.Position(n.Pos()))
					}
				}
				return true
			})
		}
	}
}

// Tools reach input only through a hold of the input gate (tools.gesture), whose context the
// emergency stop cancels: no tool may ask the desktop for its input directly.
func TestToolsReachInputThroughTheGate(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range listPackages(t) {
		if !isUnder(p.rel, []string{"internal/tools"}) {
			continue
		}
		for _, name := range p.files {
			f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 0 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Input" {
					return true
				}
				if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "Desktop" {
					t.Errorf("%s: input taken from the desktop, not from a hold of the input gate (tools.gesture)", fset.Position(call.Pos()))
				}
				return true
			})
		}
	}
}
