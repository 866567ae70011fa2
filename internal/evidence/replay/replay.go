// Package replay re-runs a recorded session (an evidence bundle) against a server and reports,
// call by call, where the outcome differs from the recording. It owns the remapping of window
// handles, process ids and element refs between the two runs. It only reads what
// internal/evidence recorded; the recorder knows nothing of it.
package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mcec/mcec/internal/evidence"
)

// Caller runs one tool call against a server and returns the envelope's JSON.
type Caller interface {
	Call(ctx context.Context, tool string, args json.RawMessage) ([]byte, error)
}

// CallerFunc adapts a function to Caller.
type CallerFunc func(ctx context.Context, tool string, args json.RawMessage) ([]byte, error)

// Call implements Caller.
func (f CallerFunc) Call(ctx context.Context, tool string, args json.RawMessage) ([]byte, error) {
	return f(ctx, tool, args)
}

// Outcome is what replay compares: ok, and for a failure its category and code.
type Outcome struct {
	OK       bool   `json:"ok"`
	Category string `json:"category,omitempty"`
	Code     string `json:"code,omitempty"`
}

func (o Outcome) String() string {
	if o.OK {
		return "ok"
	}
	return o.Category + "/" + o.Code
}

// Row is one replayed call.
type Row struct {
	Seq      int
	Tool     string
	Recorded Outcome
	Replayed Outcome
	Match    bool
	// Remapped lists the substitutions made in the arguments, e.g. "handle 41943→62914".
	Remapped []string
	// Notes say what could not be remapped, or why the call was not compared.
	Notes []string
	// Envelope is the replayed envelope as the server sent it.
	Envelope json.RawMessage
}

// Report is the outcome of a replay.
type Report struct {
	Rows              []Row
	Matched, Diverged int
	// Truncated: the recording stopped at its size cap; later calls were not recorded.
	Truncated bool
	// SessionID is the session the replay ran in.
	SessionID string
}

// Failed reports whether any call's outcome differed.
func (r *Report) Failed() bool { return r.Diverged > 0 }

// Print writes the per-call table and the summary.
func (r *Report) Print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CALL\tTOOL\tRECORDED\tREPLAYED\tRESULT\tDETAIL")
	for _, row := range r.Rows {
		verdict := "match"
		if !row.Match {
			verdict = "DIVERGED"
		}
		var detail []string
		for _, m := range row.Remapped {
			detail = append(detail, "remapped "+m)
		}
		detail = append(detail, row.Notes...)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", row.Seq, row.Tool, row.Recorded, row.Replayed, verdict, strings.Join(detail, "; "))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nreplayed %d calls in session %s: %d match, %d diverged\n", len(r.Rows), r.SessionID, r.Matched, r.Diverged)
	if r.Truncated {
		fmt.Fprintln(w, "the recording was truncated at its size cap: later calls were not recorded and not replayed")
	}
	for _, row := range r.Rows {
		if !row.Match {
			fmt.Fprintf(w, "first divergence: call %d %s: recorded %s, replayed %s\n", row.Seq, row.Tool, row.Recorded, row.Replayed)
			break
		}
	}
}

// Run re-issues the recorded requests of b, in order, through c, in a session of their own,
// and compares each outcome with the recording. Window handles, process ids and element refs
// in the arguments are remapped to the replay's own (see remapper). The bundle must verify.
func Run(ctx context.Context, b *evidence.Bundle, c Caller) (*Report, error) {
	v, err := b.Verify()
	if err != nil {
		return nil, fmt.Errorf("the recording does not verify: %w", err)
	}
	type pair struct{ req, resp evidence.Line }
	var pairs []pair
	for i := 0; i+1 < len(v.Lines); i++ {
		switch v.Lines[i].Kind {
		case evidence.KindRequest: // Verify made sure its response follows
			pairs = append(pairs, pair{v.Lines[i], v.Lines[i+1]})
			i++
		case evidence.KindOperator: // what the operator did is not replayed
			continue
		}
	}
	rm := newRemapper()
	for _, p := range pairs {
		rm.scanRecorded(p.resp.Envelope)
	}
	rep := &Report{Truncated: v.Truncated}

	sessionID := ""
	ownSession := len(pairs) == 0 || pairs[0].req.Tool != "session-start"
	if ownSession {
		env, err := c.Call(ctx, "session-start", json.RawMessage("{}"))
		if err != nil {
			return nil, fmt.Errorf("start a replay session: %w", err)
		}
		if sessionID = envelopeSession(env); sessionID == "" {
			return nil, fmt.Errorf("session-start answered without a session: %s", truncateString(string(env), 300))
		}
	}
	ended := false
	for _, p := range pairs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		row := Row{Seq: p.req.Seq, Tool: p.req.Tool, Recorded: outcomeOf(p.resp.Envelope)}
		rm.session = sessionID
		args, err := rm.remapArgs(ctx, p.req.Args, sessionID, p.req.Tool != "session-start", c, &row)
		if err != nil {
			return rep, err
		}
		env, err := c.Call(ctx, p.req.Tool, args)
		if err != nil {
			return rep, fmt.Errorf("call %d %s: %w", p.req.Seq, p.req.Tool, err)
		}
		row.Envelope = env
		row.Replayed = outcomeOf(env)
		row.Match = row.Recorded == row.Replayed
		if row.Match {
			rep.Matched++
		} else {
			rep.Diverged++
		}
		if p.req.Tool == "session-start" && row.Replayed.OK {
			sessionID = envelopeSession(env)
		}
		if p.req.Tool == "session-end" && row.Replayed.OK {
			ended = true
		}
		rm.learn(p.resp.Envelope, env)
		rep.Rows = append(rep.Rows, row)
	}
	rep.SessionID = sessionID
	if ownSession && !ended && sessionID != "" {
		// Leave no session behind on a long-running server; its evidence stays on disk.
		args, _ := json.Marshal(map[string]string{"sessionId": sessionID})
		_, _ = c.Call(ctx, "session-end", args)
	}
	return rep, nil
}

// outcomeOf reads ok/category/code from an envelope; an unreadable one is an internal failure.
func outcomeOf(env json.RawMessage) Outcome {
	var e struct {
		OK    bool `json:"ok"`
		Error *struct {
			Category string `json:"category"`
			Code     string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(env, &e); err != nil {
		return Outcome{Category: "internal", Code: "unreadable-envelope"}
	}
	if e.OK || e.Error == nil {
		return Outcome{OK: e.OK}
	}
	return Outcome{Category: e.Error.Category, Code: e.Error.Code}
}

func envelopeSession(env []byte) string {
	var e struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(env, &e)
	return e.SessionID
}

// winDesc is how a window is recognized across runs.
type winDesc struct {
	handle      uint64
	title       string
	processName string
	className   string
	pid         int64
}

// elDesc is how an element is recognized across runs.
type elDesc struct{ role, name string }

// remapper translates the recording's window handles, process ids and element refs into the
// replay's. It learns from each pair of envelopes (recorded, replayed) of the same call by
// walking them side by side: a window in the same place with the same title (or process) maps
// handle and pid, an element in the same place with the same role and name maps its ref. What the
// walk cannot align is matched by description (title/process for windows, role/name for
// elements) among everything the replay has seen; a handle still unknown is looked up with a
// windows call.
type remapper struct {
	handles map[uint64]uint64
	pids    map[int64]int64
	refs    map[string]string

	recWin map[uint64]winDesc // every window the recording described, by handle
	recPID map[int64]string   // process name of every recorded pid
	recEl  map[string]elDesc  // every element the recording described, by ref

	liveWin []winDesc
	liveEl  map[elDesc]map[string]bool
	// session is the replay's session, for the look-ups remapping makes.
	session string
}

func newRemapper() *remapper {
	return &remapper{handles: map[uint64]uint64{}, pids: map[int64]int64{}, refs: map[string]string{},
		recWin: map[uint64]winDesc{}, recPID: map[int64]string{}, recEl: map[string]elDesc{}, liveEl: map[elDesc]map[string]bool{}}
}

// describe reads a window or element description from a JSON object.
func describeWindow(m map[string]any) (winDesc, bool) {
	h, ok := jsonUint(m["handle"])
	if !ok || h == 0 {
		return winDesc{}, false
	}
	d := winDesc{handle: h}
	d.title, _ = m["title"].(string)
	d.processName, _ = m["processName"].(string)
	d.className, _ = m["className"].(string)
	if p, ok := jsonUint(m["processId"]); ok {
		d.pid = int64(p)
	}
	return d, true
}

func describeElement(m map[string]any) (string, elDesc, bool) {
	ref, _ := m["ref"].(string)
	role, hasRole := m["role"].(string)
	if ref == "" || !hasRole {
		return "", elDesc{}, false
	}
	name, _ := m["name"].(string)
	return ref, elDesc{role: role, name: name}, true
}

func jsonUint(v any) (uint64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	u, err := strconv.ParseUint(n.String(), 10, 64)
	return u, err == nil
}

// walkObjects calls f on every JSON object inside v.
func walkObjects(v any, f func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		f(t)
		for _, c := range t {
			walkObjects(c, f)
		}
	case []any:
		for _, c := range t {
			walkObjects(c, f)
		}
	}
}

// scanRecorded indexes the windows, pids and elements a recorded envelope describes.
func (rm *remapper) scanRecorded(env json.RawMessage) {
	v, err := evidence.DecodeExact(env)
	if err != nil {
		return
	}
	walkObjects(v, func(m map[string]any) {
		if d, ok := describeWindow(m); ok && (d.title != "" || d.processName != "") {
			rm.recWin[d.handle] = d
		}
		if p, ok := jsonUint(m["processId"]); ok {
			if name, _ := m["processName"].(string); name != "" {
				rm.recPID[int64(p)] = name
			}
		}
		if ref, d, ok := describeElement(m); ok {
			rm.recEl[ref] = d
		}
	})
}

// learn aligns a recorded envelope with the replayed one and indexes what the replay saw.
func (rm *remapper) learn(recorded, replayed json.RawMessage) {
	live, err := evidence.DecodeExact(replayed)
	if err != nil {
		return
	}
	rm.indexLive(live)
	rec, err := evidence.DecodeExact(recorded)
	if err != nil {
		return
	}
	rm.align(rec, live)
}

func (rm *remapper) indexLive(v any) {
	walkObjects(v, func(m map[string]any) {
		if d, ok := describeWindow(m); ok {
			rm.liveWin = append(rm.liveWin, d)
		}
		if ref, d, ok := describeElement(m); ok {
			if rm.liveEl[d] == nil {
				rm.liveEl[d] = map[string]bool{}
			}
			rm.liveEl[d][ref] = true
		}
	})
}

// align walks rec and live side by side.
func (rm *remapper) align(rec, live any) {
	switch r := rec.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok {
			return
		}
		rm.pairObject(r, l)
		for k, rv := range r {
			if lv, ok := l[k]; ok {
				rm.align(rv, lv)
			}
		}
	case []any:
		l, ok := live.([]any)
		if !ok {
			return
		}
		if len(r) == len(l) {
			for i := range r {
				rm.align(r[i], l[i])
			}
			return
		}
		// Lists of different length: pair items by identity, first come first served.
		used := make([]bool, len(l))
		for _, ri := range r {
			key := identity(ri)
			if key == "" {
				continue
			}
			for j, li := range l {
				if !used[j] && identity(li) == key {
					used[j] = true
					rm.align(ri, li)
					break
				}
			}
		}
	}
}

// identity is what two list items must share to be the same thing in both runs.
func identity(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	if d, ok := describeWindow(m); ok {
		return "w\x00" + d.title + "\x00" + d.processName + "\x00" + d.className
	}
	if _, d, ok := describeElement(m); ok {
		return "e\x00" + d.role + "\x00" + d.name
	}
	return ""
}

// pairObject maps the identities two objects at the same place carry.
func (rm *remapper) pairObject(r, l map[string]any) {
	if rd, ok := describeWindow(r); ok {
		if ld, ok := describeWindow(l); ok && sameWindow(rd, ld) {
			rm.handles[rd.handle] = ld.handle
			if rd.pid != 0 && ld.pid != 0 {
				rm.pids[rd.pid] = ld.pid
			}
		}
	}
	// Objects such as launch's result carry a pid without a window description.
	rp, rok := jsonUint(r["processId"])
	lp, lok := jsonUint(l["processId"])
	rn, _ := r["processName"].(string)
	ln, _ := l["processName"].(string)
	if rok && lok && rp != 0 && lp != 0 && rn == ln {
		rm.pids[int64(rp)] = int64(lp)
	}
	if rref, rd, ok := describeElement(r); ok {
		if lref, ld, ok := describeElement(l); ok && rd == ld {
			rm.refs[rref] = lref
		}
	}
}

func sameWindow(a, b winDesc) bool {
	if a.title != "" || b.title != "" {
		return a.title == b.title && (a.processName == "" || b.processName == "" || a.processName == b.processName)
	}
	return a.processName != "" && a.processName == b.processName && a.className == b.className
}

// remapArgs rewrites the recorded arguments for the replay: sessionId is replaced (or removed
// when session is ""), handles, pids and refs are translated.
func (rm *remapper) remapArgs(ctx context.Context, raw json.RawMessage, session string, withSession bool, c Caller, row *Row) (json.RawMessage, error) {
	v, err := evidence.DecodeExact(raw)
	if err != nil {
		v = map[string]any{}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		obj = map[string]any{}
	}
	delete(obj, "sessionId")
	if withSession && session != "" {
		obj["sessionId"] = session
	}
	var walkErr error
	var walk func(m map[string]any)
	walk = func(m map[string]any) {
		for k, val := range m {
			switch k {
			case "handle":
				if h, ok := jsonUint(val); ok && h != 0 {
					nh, err := rm.mapHandle(ctx, h, c, row)
					if err != nil {
						walkErr = err
					}
					if nh != h {
						m[k] = json.Number(strconv.FormatUint(nh, 10))
						row.Remapped = append(row.Remapped, fmt.Sprintf("handle %d→%d", h, nh))
					}
				}
			case "pid":
				if p, ok := jsonUint(val); ok && p != 0 {
					np, err := rm.mapPID(ctx, int64(p), c, row)
					if err != nil {
						walkErr = err
					}
					if np != int64(p) {
						m[k] = json.Number(strconv.FormatInt(np, 10))
						row.Remapped = append(row.Remapped, fmt.Sprintf("pid %d→%d", p, np))
					}
				}
			case "ref":
				if ref, ok := val.(string); ok && ref != "" {
					if nr := rm.mapRef(ref, row); nr != ref {
						m[k] = nr
						row.Remapped = append(row.Remapped, fmt.Sprintf("ref %s→%s", ref, nr))
					}
				}
			default:
				switch t := val.(type) {
				case map[string]any:
					walk(t)
				case []any:
					for _, item := range t {
						if im, ok := item.(map[string]any); ok {
							walk(im)
						}
					}
				}
			}
		}
	}
	walk(obj)
	if walkErr != nil {
		return nil, walkErr
	}
	return json.Marshal(obj)
}

func (rm *remapper) mapHandle(ctx context.Context, h uint64, c Caller, row *Row) (uint64, error) {
	if nh, ok := rm.handles[h]; ok {
		return nh, nil
	}
	d, known := rm.recWin[h]
	if !known {
		row.Notes = append(row.Notes, fmt.Sprintf("handle %d never appears in a recorded result: used as is", h))
		return h, nil
	}
	if nh, ok := rm.findWindow(d); ok {
		return nh, nil
	}
	// Not seen in the replay yet: list the windows once more and look again.
	if err := rm.relist(ctx, c); err != nil {
		return h, err
	}
	if nh, ok := rm.findWindow(d); ok {
		return nh, nil
	}
	row.Notes = append(row.Notes, fmt.Sprintf("no window titled %q (process %q) to stand in for handle %d", d.title, d.processName, h))
	return h, nil
}

// findWindow picks the replay window matching d, preferring the most recently seen.
func (rm *remapper) findWindow(d winDesc) (uint64, bool) {
	for i := len(rm.liveWin) - 1; i >= 0; i-- {
		if sameWindow(d, rm.liveWin[i]) {
			rm.handles[d.handle] = rm.liveWin[i].handle
			return rm.liveWin[i].handle, true
		}
	}
	return 0, false
}

func (rm *remapper) mapPID(ctx context.Context, p int64, c Caller, row *Row) (int64, error) {
	if np, ok := rm.pids[p]; ok {
		return np, nil
	}
	name, known := rm.recPID[p]
	if !known {
		row.Notes = append(row.Notes, fmt.Sprintf("pid %d never appears in a recorded result: used as is", p))
		return p, nil
	}
	pick := func() (int64, bool) {
		for i := len(rm.liveWin) - 1; i >= 0; i-- {
			if w := rm.liveWin[i]; w.pid != 0 && strings.EqualFold(w.processName, name) {
				rm.pids[p] = w.pid
				return w.pid, true
			}
		}
		return 0, false
	}
	if np, ok := pick(); ok {
		return np, nil
	}
	if err := rm.relist(ctx, c); err != nil {
		return p, err
	}
	if np, ok := pick(); ok {
		return np, nil
	}
	row.Notes = append(row.Notes, fmt.Sprintf("no process %q to stand in for pid %d", name, p))
	return p, nil
}

func (rm *remapper) mapRef(ref string, row *Row) string {
	if nr, ok := rm.refs[ref]; ok {
		return nr
	}
	d, known := rm.recEl[ref]
	if !known {
		row.Notes = append(row.Notes, fmt.Sprintf("ref %s never appears in a recorded result: used as is", ref))
		return ref
	}
	switch refs := rm.liveEl[d]; len(refs) {
	case 1:
		for nr := range refs {
			rm.refs[ref] = nr
			return nr
		}
	case 0:
		row.Notes = append(row.Notes, fmt.Sprintf("no element %q named %q seen in the replay to stand in for ref %s", d.role, d.name, ref))
	default:
		row.Notes = append(row.Notes, fmt.Sprintf("%d elements %q named %q: ref %s not remapped", len(refs), d.role, d.name, ref))
	}
	return ref
}

// relist lists the replay's windows once more, so that windows which appeared since the last
// listing can stand in for recorded ones.
func (rm *remapper) relist(ctx context.Context, c Caller) error {
	env, err := c.Call(ctx, "windows", rm.lookupArgs())
	if err != nil {
		return err
	}
	if live, err := evidence.DecodeExact(env); err == nil {
		rm.indexLive(live)
	}
	return nil
}

// lookupArgs are the arguments of a windows look-up, in the replay's session.
func (rm *remapper) lookupArgs() json.RawMessage {
	if rm.session == "" {
		return json.RawMessage("{}")
	}
	b, _ := json.Marshal(map[string]string{"sessionId": rm.session})
	return b
}

func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
