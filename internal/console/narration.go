package console

import (
	"context"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/calldesc"
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
	e.Action, e.Target = calldesc.Describe(f.Args)
	if e.OK && calldesc.ActsOnScreen(f.Tool) {
		e.Point, e.Box = calldesc.Where(f.Outcome.Envelope.Result())
	}
	n.publish(e)
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
