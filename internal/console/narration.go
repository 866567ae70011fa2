package console

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/dispatch"
)

// Narration is one finished tool call as the console shows it: what was called, on what, and how
// it ended. It names its target from a short list of identifying arguments and never carries
// text an agent typed or set (a password stays out of the console as out of the logs).
type Narration struct {
	Seq     uint64    `json:"seq"`
	At      time.Time `json:"at"`
	Session string    `json:"session,omitempty"`
	Tool    string    `json:"tool"`
	Action  string    `json:"action,omitempty"`
	Target  string    `json:"target,omitempty"`
	OK      bool      `json:"ok"`
	Code    string    `json:"code,omitempty"`
	Ms      int64     `json:"ms"`
	// Point is where on the screen a click landed (a drag ended), and Box the element acted on
	// (x, y, width, height on the screen), for the live view's overlay.
	Point *[2]int `json:"point,omitempty"`
	Box   *[4]int `json:"box,omitempty"`
}

// backlogSize is how many recent calls a newly connected viewer is shown.
const backlogSize = 200

// narrator keeps the recent calls and fans new ones out to the viewers connected. A slow viewer
// loses entries (its channel is full) rather than slowing an agent's call.
type narrator struct {
	mu      sync.Mutex
	seq     uint64
	backlog []Narration
	viewers map[chan Narration]struct{}
}

func newNarrator() *narrator { return &narrator{viewers: map[chan Narration]struct{}{}} }

// CallFinished implements dispatch.Observer.
func (n *narrator) CallFinished(_ context.Context, f dispatch.Finished) {
	e := Narration{At: f.Start, Tool: f.Tool, OK: f.Outcome.Envelope.OK(), Ms: f.Duration.Milliseconds()}
	if f.Session != nil {
		e.Session = f.Session.ID()
	}
	if err := f.Outcome.Envelope.Err(); err != nil {
		e.Code = string(err.Code)
	}
	e.Action, e.Target = describeArgs(f.Args)
	if e.OK && actsOnScreen[f.Tool] {
		e.Point, e.Box = whereOf(f.Outcome.Envelope.Result())
	}
	n.publish(e)
}

// actsOnScreen are the tools whose results say where on the screen they acted.
var actsOnScreen = map[string]bool{"click": true, "drag": true, "invoke": true, "focus": true}

// whereOf reads where a call acted from its result, in screen coordinates: the point a click
// landed (at) or a drag ended (to), and the element's rectangle (invoke, focus).
func whereOf(result any) (point *[2]int, box *[4]int) {
	b, err := json.Marshal(result)
	if err != nil {
		return nil, nil
	}
	var r struct {
		At      *[2]int `json:"at"`
		To      *[2]int `json:"to"`
		Element *struct {
			X, Y, Width, Height *int
		} `json:"element"`
	}
	if json.Unmarshal(b, &r) != nil {
		return nil, nil
	}
	point = r.At
	if point == nil {
		point = r.To
	}
	if e := r.Element; e != nil && e.X != nil && e.Y != nil && e.Width != nil && e.Height != nil && *e.Width > 0 && *e.Height > 0 {
		box = &[4]int{*e.X, *e.Y, *e.Width, *e.Height}
	}
	return point, box
}

func (n *narrator) publish(e Narration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.seq++
	e.Seq = n.seq
	n.backlog = append(n.backlog, e)
	if len(n.backlog) > backlogSize {
		n.backlog = append(n.backlog[:0], n.backlog[len(n.backlog)-backlogSize:]...)
	}
	for ch := range n.viewers {
		select {
		case ch <- e:
		default:
		}
	}
}

// subscribe returns the backlog and a channel of what follows; cancel ends the subscription.
func (n *narrator) subscribe() (backlog []Narration, next <-chan Narration, cancel func()) {
	ch := make(chan Narration, 64)
	n.mu.Lock()
	backlog = append([]Narration(nil), n.backlog...)
	n.viewers[ch] = struct{}{}
	n.mu.Unlock()
	return backlog, ch, func() {
		n.mu.Lock()
		delete(n.viewers, ch)
		n.mu.Unlock()
	}
}

// describeArgs names a call's action and target from its identifying arguments only.
func describeArgs(raw json.RawMessage) (action, target string) {
	var a struct {
		Action  string `json:"action"`
		Window  any    `json:"window"`
		Process string `json:"process"`
		PID     int    `json:"pid"`
		Handle  int    `json:"handle"`
		Element *struct {
			Ref  string `json:"ref"`
			Name string `json:"name"`
			Role string `json:"role"`
		} `json:"element"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return "", ""
	}
	var parts []string
	if e := a.Element; e != nil {
		switch {
		case e.Name != "" && e.Role != "":
			parts = append(parts, fmt.Sprintf("%s %q", e.Role, clip(e.Name)))
		case e.Name != "":
			parts = append(parts, fmt.Sprintf("%q", clip(e.Name)))
		case e.Role != "":
			parts = append(parts, e.Role)
		case e.Ref != "":
			parts = append(parts, "ref "+clip(e.Ref))
		}
	}
	switch {
	case a.Window != nil:
		parts = append(parts, fmt.Sprintf("in window %v", clip(fmt.Sprint(a.Window))))
	case a.Process != "":
		parts = append(parts, "in "+clip(a.Process))
	case a.PID != 0:
		parts = append(parts, fmt.Sprintf("in pid %d", a.PID))
	case a.Handle != 0:
		parts = append(parts, fmt.Sprintf("in window 0x%x", a.Handle))
	}
	return clip(a.Action), strings.Join(parts, " ")
}

// clip keeps a name short enough for one narration line.
func clip(s string) string {
	const max = 60
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
