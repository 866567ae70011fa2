package reach_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// check is one assertion the suite makes about an app.
type check string

// The checks, in report order. Each app's table (apps_test.go) lists the ones that apply to it.
const (
	cLaunch      check = "launch"
	cTree        check = "tree"
	cDepth       check = "default-depth"
	cRoles       check = "roles"
	cNames       check = "names"
	cBounds      check = "bounds"
	cValues      check = "values"
	cSetValue    check = "setvalue"
	cInvoke      check = "find-invoke"
	cToggle      check = "toggle"
	cWaitFor     check = "wait-for"
	cDialog      check = "dialog-tree"
	cMainDialog  check = "main-with-dialog"
	cCapture     check = "capture"
	cNoTree      check = "no-tree-error"
	cPID         check = "pid"
	cPixelClick  check = "pixel-click"
	cOCR         check = "get-text"
	cFindCell    check = "find-cell"
	cQueryBudget check = "query-budget"
	cSurvive     check = "survives"
)

var checkOrder = []check{cLaunch, cTree, cDepth, cRoles, cNames, cBounds, cValues, cSetValue, cInvoke,
	cToggle, cWaitFor, cDialog, cMainDialog, cCapture, cNoTree, cPID, cPixelClick, cOCR, cFindCell,
	cQueryBudget, cSurvive}

// checkText says what each check asserts, for the report's legend.
var checkText = map[check]string{
	cLaunch:      "`launch` (the operator path, plain arguments) returns the app's window, and the pid of the process that owns it",
	cTree:        "`query` of the main window returns its accessible tree, rooted at a frame named like the window",
	cDepth:       "the default `query` (no maxDepth/maxNodes) reaches the app's named controls, not a truncated shell",
	cRoles:       "the named controls carry sensible roles (push button, text field, check box, label …)",
	cNames:       "the controls are found by their accessible names",
	cBounds:      "the controls have bounds: non-empty, inside the window, never 0,0",
	cValues:      "a text field reads back the text it shows",
	cSetValue:    "`invoke setvalue` writes a text field; a later `query` reads the new text",
	cInvoke:      "`find` + `invoke` on a named control acts; the effect is seen by an independent read (a later `query`, or the window title)",
	cToggle:      "`invoke toggle` on a check box; a later `query` reads it checked",
	cWaitFor:     "`wait-for`, started before a change, sees it",
	cDialog:      "with a dialog open, querying the dialog's window returns the dialog's tree",
	cMainDialog:  "with a dialog open, querying the main window returns the main window's tree",
	cCapture:     "`capture` of the window is not blank",
	cNoTree:      "an app without a bridge: `query` fails `no-target`/`no-accessible-tree`",
	cPID:         "the window belongs to its process: a pid, and `windows` filtered by that pid lists it",
	cPixelClick:  "a `click` at a pixel position acts (the app changes its window title)",
	cOCR:         "`get-text` reads the text the window shows",
	cFindCell:    "`find` of the spreadsheet cell named A1 answers in under 3 s (cold, beside another office app; was 20 s and a miss; the bound stretches with the machine's load like the walk budgets) and finds it",
	cQueryBudget: "the default `query` of a huge tree answers within 3 s (stretched with the machine's load like its budget)",
	cSurvive:     "the app survives 20 mixed calls (query, find, wait-for, invoke, capture, windows): pid alive at the end, no call failed `app-not-responding`",
}

// expectation is one row of an app's table: required (pending == "") or pending with the
// reason (the bug another change fixes). A pending check that passes is reported, not failed.
type expectation struct {
	check   check
	pending string
}

func req(cs ...check) []expectation {
	out := make([]expectation, len(cs))
	for i, c := range cs {
		out[i] = expectation{check: c}
	}
	return out
}

func pending(c check, reason string) expectation { return expectation{check: c, pending: reason} }

// outcome is what a run found for one check.
type outcome struct {
	ran    bool
	ok     bool
	detail string
}

// results collects one app's outcomes and measurements.
type results struct {
	mu       sync.Mutex
	outcomes map[check]*outcome

	// Measurements for the report.
	version      string // toolkit and version from the a11y bus (platform.Desktop.Apps)
	nodes        int    // nodes in the default query (-1: no tree)
	truncated    bool
	queryMS      int64
	switches     []string // a11y variables and flags the app ran with
	statusFlags  string   // org.a11y.Status on the desktop's bus
	launchedPID  int
	windowPID    int
	unexpectedOK []check
}

func newResults() *results { return &results{outcomes: map[check]*outcome{}, nodes: -1} }

// record notes a check's outcome; a check recorded several times passes only if every record did.
func (r *results) record(c check, ok bool, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.outcomes[c]
	if o == nil {
		o = &outcome{ok: true}
		r.outcomes[c] = o
	}
	o.ran = true
	detail := fmt.Sprintf(format, args...)
	if !ok {
		if o.ok {
			o.detail = detail
		} else {
			o.detail += "; " + detail
		}
		o.ok = false
	} else if o.ok && o.detail == "" {
		o.detail = detail
	}
}

func (r *results) get(c check) outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o := r.outcomes[c]; o != nil {
		return *o
	}
	return outcome{}
}

// verdict fails t for every required check that failed or never ran, logs pending ones, and
// reports pending checks that now pass (to be flipped to required).
func (r *results) verdict(t *testing.T, table []expectation) {
	t.Helper()
	listed := map[check]bool{}
	table = slices.Clone(table)
	slices.SortStableFunc(table, func(x, y expectation) int {
		return slices.Index(checkOrder, x.check) - slices.Index(checkOrder, y.check)
	})
	for _, e := range table {
		listed[e.check] = true
		o := r.get(e.check)
		switch {
		case e.pending == "" && !o.ran:
			t.Errorf("required check %s did not run (an earlier step failed)", e.check)
		case e.pending == "" && !o.ok:
			t.Errorf("required check %s failed: %s", e.check, o.detail)
		case e.pending != "" && o.ran && o.ok:
			r.mu.Lock()
			r.unexpectedOK = append(r.unexpectedOK, e.check)
			r.mu.Unlock()
			t.Logf("PENDING CHECK NOW PASSES: %s (was pending: %s) — flip it to required: %s", e.check, e.pending, o.detail)
		case e.pending != "":
			t.Logf("pending %s (%s): %s", e.check, e.pending, orNotRun(o))
		default:
			t.Logf("ok %s: %s", e.check, o.detail)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.outcomes {
		if !listed[c] {
			t.Errorf("check %s ran but is not in the app's table", c)
		}
	}
}

func orNotRun(o outcome) string {
	if !o.ran {
		return "did not run"
	}
	return o.detail
}

// works and fails list the table's checks by outcome, for the report.
func (r *results) split(table []expectation) (works, fails []string) {
	for _, c := range checkOrder {
		i := slices.IndexFunc(table, func(e expectation) bool { return e.check == c })
		if i < 0 {
			continue
		}
		o := r.get(c)
		switch {
		case o.ran && o.ok:
			works = append(works, string(c))
		case table[i].pending != "":
			fails = append(fails, fmt.Sprintf("%s (pending: %s)", c, table[i].pending))
		default:
			fails = append(fails, fmt.Sprintf("%s (REQUIRED: %s)", c, strings.ReplaceAll(orNotRun(o), "|", "/")))
		}
	}
	return works, fails
}
