package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcec/mcec/internal/atomicfile"
	"github.com/mcec/mcec/internal/session"
)

// maxSummaryJSON bounds each JSON block in failure-summary.md; the whole value is in
// session.json and the trace.
const maxSummaryJSON = 16 << 10

// writeSummary rewrites failure-summary.md; lg.mu is held.
func (r *Recorder) writeSummary(lg *sessionLog, st session.Status) {
	md := renderSummary(lg, st, r.opts.Version)
	if err := atomicfile.WriteFile(filepath.Join(lg.dir, SummaryFile), md, 0o600); err != nil {
		r.log.Warn("evidence: failure summary not written", "session", lg.id, "err", err)
	}
}

// renderSummary writes the Markdown: PASS or FAIL, the latest failing call with its arguments and
// error, the last good observation before it (its capture linked), and the recent actions.
func renderSummary(lg *sessionLog, st session.Status, version string) []byte {
	var b bytes.Buffer
	f := lg.state.LastFailure
	verdict := "PASS"
	if st.Failures > 0 {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "# %s: session %s\n\n", verdict, st.SessionID)
	fmt.Fprintf(&b, "- started: %s\n", st.StartedAt.UTC().Format(time.RFC3339Nano))
	fmt.Fprintf(&b, "- calls: %d, failed: %d\n", st.Calls, st.Failures)
	if lg.state.EndedReason != "" {
		fmt.Fprintf(&b, "- ended: %s\n", lg.state.EndedReason)
	}
	fmt.Fprintf(&b, "- mcec: %s\n", version)
	trunc := ""
	if lg.state.Trace.Truncated {
		trunc = " (truncated: it reached its size cap)"
	}
	fmt.Fprintf(&b, "- trace: [%s](%s)%s; details in [%s](%s), [%s](%s)\n\n", TraceFile, TraceFile, trunc,
		SessionFile, SessionFile, EnvironmentFile, EnvironmentFile)

	if f == nil {
		b.WriteString("Every call succeeded.\n\n")
	} else {
		b.WriteString("## Failing call\n\n")
		where := ""
		if f.Line > 0 {
			where = fmt.Sprintf(" (trace lines %d–%d)", f.Line, f.Line+1)
		}
		fmt.Fprintf(&b, "Call %d: `%s` at %s, after %s%s.\n\n", f.Seq, f.Tool, f.At.UTC().Format(time.RFC3339Nano),
			formatMs(f.DurationMs), where)
		b.WriteString("Arguments:\n\n")
		writeJSONBlock(&b, f.Args)
		b.WriteString("## Error\n\n")
		fmt.Fprintf(&b, "- category: `%s`\n- code: `%s`\n- detail: %s\n\n", f.Category, f.Code, oneLine(f.Detail))
		if f.Seq < lg.state.Trace.Seq {
			fmt.Fprintf(&b, "%d later call(s) ran after it; see the recent actions.\n\n", lg.state.Trace.Seq-f.Seq)
		}
		b.WriteString("## Last good observation\n\n")
		obs := lastObservationOf(f.Error)
		if obs == nil {
			b.WriteString("None: the session had observed nothing before this failure.\n\n")
		} else {
			kind, _ := obs["kind"].(string)
			if kind == "" {
				kind = "observation"
			}
			fmt.Fprintf(&b, "Kind: `%s`.", kind)
			if a, _ := obs["artifact"].(string); a != "" {
				rel := relArtifact(lg.dir, a)
				fmt.Fprintf(&b, " Image: [%s](%s)\n\n![last good capture](%s)\n\n", rel, rel, rel)
			} else if e, _ := obs["artifactError"].(string); e != "" {
				fmt.Fprintf(&b, " Its image was not saved: %s\n\n", oneLine(e))
			} else {
				b.WriteString("\n\n")
			}
			writeJSONBlock(&b, rawLastObservation(f.Error))
		}
	}

	if len(lg.state.RecentActions) > 0 {
		b.WriteString("## Recent actions\n\n| call | at (UTC) | tool | outcome | duration |\n|---:|---|---|---|---:|\n")
		for _, a := range lg.state.RecentActions {
			outcome := "ok"
			if !a.OK {
				outcome = fmt.Sprintf("**failed** `%s` / `%s`", a.Category, a.Code)
			}
			fmt.Fprintf(&b, "| %d | %s | `%s` | %s | %s |\n", a.Seq, a.At.UTC().Format("15:04:05.000"), a.Tool, outcome, formatMs(a.DurationMs))
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// lastObservationOf extracts error.lastObservation from a contract error object.
func lastObservationOf(errJSON json.RawMessage) map[string]any {
	v, err := DecodeExact(errJSON)
	if err != nil {
		return nil
	}
	m, _ := v.(map[string]any)
	obs, _ := m["lastObservation"].(map[string]any)
	return obs
}

// rawLastObservation is error.lastObservation as recorded, its keys in their order.
func rawLastObservation(errJSON json.RawMessage) json.RawMessage {
	var e struct {
		LastObservation json.RawMessage `json:"lastObservation"`
	}
	_ = json.Unmarshal(errJSON, &e)
	return e.LastObservation
}

func writeJSONBlock(b *bytes.Buffer, raw json.RawMessage) {
	var pretty bytes.Buffer
	if len(raw) == 0 || json.Indent(&pretty, raw, "", "  ") != nil {
		pretty.Reset()
		pretty.WriteString("{}")
	}
	s := pretty.String()
	if len(s) > maxSummaryJSON {
		s = s[:maxSummaryJSON] + "\n… (cut; the whole value is in session.json and the trace)"
	}
	// A fence longer than any backtick run inside keeps the block intact.
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	fmt.Fprintf(b, "%sjson\n%s\n%s\n\n", fence, s, fence)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func formatMs(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}
