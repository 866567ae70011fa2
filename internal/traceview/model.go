// Package traceview turns a session's evidence (a session directory or a bundle zip) into one
// self-contained HTML page for people: the hash chain's verdict, a timeline of the calls with
// their target, duration, outcome and effect, each call's arguments and envelope, the captures it
// made, the frames kept around it with the point it acted on, and the failure summary. The page
// opens on the first failure. It needs nothing but the file: styles and images are inline, and
// it runs no script from anywhere else.
package traceview

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/mcec/mcec/internal/calldesc"
	"github.com/mcec/mcec/internal/evidence"
)

// Page is what the viewer shows of one bundle.
type Page struct {
	Name    string
	Session *evidence.SessionJSON
	Verdict Verdict
	Calls   []Call
	// FirstFailure is the index in Calls of the first failed call, -1 when none failed.
	FirstFailure int
	// Summary is failure-summary.md, Environment environment.json indented; "" when absent.
	Summary, Environment string
	// Omitted counts the images left out because the page would have grown too large.
	Omitted int
}

// Verdict is the hash chain's verdict on the trace.
type Verdict struct {
	Intact bool
	// Text says it in a sentence; BrokenLine is the first bad line (1-based) when not intact.
	Text       string
	BrokenLine int
	Notes      []string
}

// Call is one row of the timeline: a call (its request and response lines), an operator's act,
// the truncation marker, or a line that could not be read.
type Call struct {
	Seq  int
	Kind string // "call", "operator", "truncated", "unreadable"
	// Lines are the trace lines (1-based) the row was read from.
	Lines          []int
	Tool           string
	Action, Target string
	At             time.Time
	DurationMs     float64
	OK             bool
	Category, Code string
	Detail         string
	Warnings       []string
	Effect         []string
	Args, Envelope string
	// Broken: the chain breaks at one of this row's lines.
	Broken bool
	// Point and Box are where the call acted on the screen (a click's point, the element's
	// rectangle), drawn on its frames.
	Point *[2]int
	Box   *[4]int
	// Images are the captures the call made and the frames kept before and after it.
	Images []Image

	frames []evidence.FrameRef
}

// Image is a picture shown with a call, inline.
type Image struct {
	Label string // "capture", "before", "after"
	Name  string
	MIME  string
	Data  []byte
	// Origin is the screen position of the image's top-left pixel and Scale its size relative
	// to the screen, for drawing Point and Box on a frame; Scale 0: nothing is drawn.
	Origin [2]int
	Scale  float64
	// Changed: a frame whose bytes are not those the trace recorded.
	Changed bool

	sha256 string // the frame's recorded digest
}

// Budget bounds the images inlined into one page, so that a long session's page stays openable.
const Budget = 48 << 20

// Build reads a bundle into a Page.
func Build(b *evidence.Bundle) *Page {
	p := &Page{Name: b.Name, Session: b.Session, FirstFailure: -1}
	p.Verdict = verdictOf(b)
	p.Calls = rows(b.Trace, p.Verdict.BrokenLine)
	if data, err := b.ReadFile(evidence.SummaryFile); err == nil {
		p.Summary = string(data)
	}
	if data, err := b.ReadFile(evidence.EnvironmentFile); err == nil {
		var buf bytes.Buffer
		if json.Indent(&buf, data, "", "  ") == nil {
			p.Environment = buf.String()
		}
	}
	have := map[string]bool{}
	for _, f := range b.Files {
		have[f] = true
	}
	budget := Budget
	for i := range p.Calls {
		c := &p.Calls[i]
		if c.Kind == "call" && !c.OK && p.FirstFailure < 0 {
			p.FirstFailure = i
		}
		for _, img := range imagesOf(c, have) {
			data, err := b.ReadFile(img.Name)
			if err != nil {
				continue
			}
			if len(data) > budget {
				p.Omitted++
				continue
			}
			budget -= len(data)
			img.Data = data
			if img.sha256 != "" {
				sum := sha256.Sum256(data)
				img.Changed = hex.EncodeToString(sum[:]) != img.sha256
			}
			c.Images = append(c.Images, img)
		}
	}
	return p
}

func verdictOf(b *evidence.Bundle) Verdict {
	v, err := b.Verify()
	var ce *evidence.ChainError
	switch {
	case errors.As(err, &ce):
		return Verdict{Text: "hash chain BROKEN: " + ce.Error() + ". The trace was changed, reordered or cut after it was recorded: do not trust the calls from that line on.", BrokenLine: ce.Line}
	case err != nil:
		return Verdict{Text: "hash chain could not be checked: " + err.Error(), BrokenLine: -1}
	}
	out := Verdict{Intact: true, Text: fmt.Sprintf("hash chain intact: %d lines, head %.12s…", len(v.Lines), v.Head)}
	if b.Session == nil {
		out.Notes = append(out.Notes, "session.json is missing: lines cut from the end would not be detected")
	}
	if v.Truncated {
		out.Notes = append(out.Notes, "the trace reached its size cap; later calls were counted but not recorded")
	}
	if v.Beyond > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d line(s) after session.json's last checkpoint (a live session, or one that stopped before its checkpoint); they chain correctly", v.Beyond))
	}
	if v.TornBytes > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("the last call's %d bytes were cut short (the server was killed while writing them) and are not shown", v.TornBytes))
	}
	return out
}

// rows reads the trace line by line, leniently: a tampered trace is still shown, with the rows
// from the broken line on marked.
func rows(trace []byte, brokenLine int) []Call {
	var out []Call
	open := -1 // index of the call whose request waits for its response
	for i, raw := range bytes.Split(trace, []byte("\n")) {
		n := i + 1
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		broken := brokenLine > 0 && n >= brokenLine
		l, err := evidence.ParseLine(raw)
		if err != nil {
			out = append(out, Call{Kind: "unreadable", Lines: []int{n}, Detail: err.Error(), Broken: broken})
			open = -1
			continue
		}
		switch l.Kind {
		case evidence.KindRequest:
			c := Call{Seq: l.Seq, Kind: "call", Lines: []int{n}, Tool: l.Tool, At: l.At, Args: indent(l.Args), Broken: broken}
			c.Action, c.Target = calldesc.Describe(l.Args)
			out = append(out, c)
			open = len(out) - 1
		case evidence.KindResponse:
			if open < 0 || out[open].Seq != l.Seq {
				out = append(out, Call{Seq: l.Seq, Kind: "call", Tool: l.Tool, At: l.At})
				open = len(out) - 1
			}
			c := &out[open]
			c.Lines = append(c.Lines, n)
			c.Broken = c.Broken || broken
			c.frames = l.Frames
			fillResponse(c, l)
			open = -1
		case evidence.KindOperator:
			out = append(out, Call{Seq: l.Seq, Kind: "operator", Lines: []int{n}, At: l.At, Tool: l.Event, Target: l.How, OK: true, Broken: broken})
		case evidence.KindTruncated:
			out = append(out, Call{Seq: l.Seq, Kind: "truncated", Lines: []int{n}, At: l.At, Detail: l.Detail, Broken: broken})
		}
	}
	return out
}

func fillResponse(c *Call, l evidence.Line) {
	if l.DurationMs != nil {
		c.DurationMs = *l.DurationMs
	}
	c.OK = l.OK != nil && *l.OK
	c.Envelope = indent(l.Envelope)
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Category, Code, Detail string
		} `json:"error"`
		Warnings []struct{ Code string } `json:"warnings"`
	}
	if json.Unmarshal(l.Envelope, &env) != nil {
		return
	}
	if e := env.Error; e != nil {
		c.Category, c.Code, c.Detail = e.Category, e.Code, e.Detail
	}
	for _, w := range env.Warnings {
		c.Warnings = append(c.Warnings, w.Code)
	}
	if len(env.Result) > 0 {
		if calldesc.ActsOnScreen(c.Tool) {
			c.Point, c.Box = calldesc.Where(env.Result)
		}
		c.Effect = effectLines(env.Result)
		if len(c.Effect) > 0 && c.Effect[0] == noChange && slices.Contains(c.Warnings, "effect-unobservable") {
			// Not "nothing changed": nothing the action could change was readable.
			c.Effect[0] = "could not observe: no tree and no pixels to compare"
		}
	}
}

// imagesOf lists the images a call brings: the files its envelope names as artifacts (captures,
// recordings' frames) and its kept frames, those the bundle holds.
func imagesOf(c *Call, have map[string]bool) []Image {
	if c.Kind != "call" {
		return nil
	}
	var imgs []Image
	seen := map[string]bool{}
	for _, a := range artifactsIn([]byte(c.Envelope)) {
		name := path.Base(a)
		mime := mimeOf(name)
		if seen[name] || !have[name] || mime == "" {
			continue
		}
		seen[name] = true
		imgs = append(imgs, Image{Label: "capture", Name: name, MIME: mime})
	}
	for _, f := range c.frames {
		if have[f.File] && mimeOf(f.File) != "" {
			imgs = append(imgs, Image{Label: f.When, Name: f.File, MIME: mimeOf(f.File), Origin: [2]int{f.X, f.Y}, Scale: f.Scale, sha256: f.SHA256})
		}
	}
	return imgs
}

func mimeOf(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	}
	return ""
}

// artifactsIn finds every "artifact" string in a JSON document.
func artifactsIn(doc []byte) []string {
	var v any
	if json.Unmarshal(doc, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if a, ok := t["artifact"].(string); ok {
				out = append(out, a)
			}
			for _, x := range t {
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// maxShownJSON bounds one call's arguments or envelope on the page: a query of a huge tree is
// megabytes, and the page must stay openable; the trace keeps it whole.
const maxShownJSON = 64 << 10

func indent(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var buf bytes.Buffer
	out := string(raw)
	if json.Indent(&buf, raw, "", "  ") == nil {
		out = buf.String()
	}
	if len(out) > maxShownJSON {
		cut := strings.ToValidUTF8(out[:maxShownJSON], "")
		out = cut + fmt.Sprintf("\n… %d more bytes: the trace holds them all", len(out)-len(cut))
	}
	return out
}
