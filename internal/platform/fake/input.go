package fake

import (
	"context"
	"fmt"
	"slices"

	"github.com/mcec/mcec/internal/platform"
)

// Gesture is one input call as the desktop received it.
type Gesture struct {
	// Kind is the Input method: "click", "drag", "chord", "type", "press", "release",
	// "buttondown", "buttonup", "move", "scroll".
	Kind   string
	Points []platform.Point
	Button platform.Button
	Count  int
	Keys   []string
	Text   string
	DX, DY int
	// Err is why the gesture stopped midway (its context ended, the hook failed); nil when it
	// completed. An aborted gesture has released everything it pressed.
	Err error
}

// Step is a moment inside a gesture, given to the input hook: the gesture so far and what is
// held down at that moment.
type Step struct {
	Gesture Gesture
	Held    []string
}

// InputHook makes every gesture call hook at each step (after each press and each move) with
// the keys and buttons held at that moment; nil removes it. When the hook returns an error the
// gesture releases what it pressed and fails with that error. Tests use it to hold a gesture
// midway (until its context ends, as an emergency stop ends it) or to fail one.
func (d *Desktop) InputHook(hook func(ctx context.Context, s Step) error) {
	d.mu.Lock()
	d.hook = hook
	d.mu.Unlock()
}

// Gestures returns every gesture received so far, in order.
func (d *Desktop) Gestures() []Gesture {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.gestures)
}

// SetPointer places the pointer, as the person at the desk moving the mouse would.
func (d *Desktop) SetPointer(p platform.Point) {
	d.mu.Lock()
	d.pointer = p
	d.mu.Unlock()
}

// Input returns the desktop's input synthesizer.
func (d *Desktop) Input() platform.Input { return input{d} }

type input struct{ d *Desktop }

func buttonName(b platform.Button) string { return fmt.Sprintf("button%d", b) }

// gesture runs one atomic gesture: steps presses and moves, with the hook and ctx checked after
// each; whatever the gesture pressed is released when it ends, also on failure.
type gesture struct {
	d       *Desktop
	ctx     context.Context
	g       Gesture
	pressed []string
}

func (d *Desktop) begin(ctx context.Context, g Gesture) (*gesture, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return nil, err
	}
	return &gesture{d: d, ctx: ctx, g: g}, nil
}

// step records a press (name != "") or a move (p), then asks the hook and the context.
func (g *gesture) step(press string, p *platform.Point) error {
	d := g.d
	d.mu.Lock()
	if press != "" {
		d.held = append(d.held, press)
		g.pressed = append(g.pressed, press)
	}
	if p != nil {
		d.pointer = *p
	}
	hook := d.hook
	s := Step{Gesture: g.g, Held: slices.Clone(d.held)}
	d.mu.Unlock()
	if hook != nil {
		if err := hook(g.ctx, s); err != nil {
			return err
		}
	}
	return g.ctx.Err()
}

// release lets go of one pressed name (the most recent first).
func (g *gesture) release(name string) {
	d := g.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if i := slices.Index(g.pressed, name); i >= 0 {
		g.pressed = slices.Delete(g.pressed, i, i+1)
	}
	if i := slices.Index(d.held, name); i >= 0 {
		d.held = slices.Delete(d.held, i, i+1)
	}
}

// end releases what is still pressed, in reverse order, and records the gesture.
func (g *gesture) end(err error) error {
	for i := len(g.pressed) - 1; i >= 0; i-- {
		g.release(g.pressed[i])
	}
	g.d.mu.Lock()
	g.g.Err = err
	g.d.gestures = append(g.d.gestures, g.g)
	g.d.mu.Unlock()
	return err
}

func (in input) Click(ctx context.Context, p platform.Point, button platform.Button, count int) error {
	d := in.d
	g, err := d.begin(ctx, Gesture{Kind: "click", Points: []platform.Point{p}, Button: button, Count: count})
	if err != nil {
		return err
	}
	if count < 1 || count > 2 {
		return g.end(fmt.Errorf("%w: click count %d", platform.ErrBadValue, count))
	}
	for range count {
		if err := g.step(buttonName(button), &p); err != nil {
			return g.end(err)
		}
		g.release(buttonName(button))
		if button == platform.ButtonLeft {
			d.clickAt(p)
		}
	}
	return g.end(nil)
}

// clickAt delivers a left click to the application under p: its window comes to the front,
// the object under p takes the focus if it can, and is activated if it is enabled.
func (d *Desktop) clickAt(p platform.Point) {
	d.mu.Lock()
	var target *window
	for i := len(d.windows) - 1; i >= 0; i-- {
		w := d.windows[i]
		b := w.Bounds
		if !w.Minimized && p.X >= b.X && p.Y >= b.Y && p.X < b.X+b.Width && p.Y < b.Y+b.Height {
			target = w
			break
		}
	}
	if target == nil {
		d.mu.Unlock()
		return
	}
	raised := !target.Focused
	if raised {
		d.activate(target)
	}
	var run func(*Desktop, string)
	var ref string
	n := d.hit(target, p)
	if n != nil && n.states["enabled"] {
		if n.states["focusable"] {
			d.setFocus(n)
		}
		ref, run = n.ref, n.activate()
	}
	d.mu.Unlock()
	if raised {
		d.windowsChanged()
	}
	if run != nil {
		run(d, ref)
	}
	if n != nil {
		d.treeChanged(target.ProcessID)
	}
}

func (in input) Drag(ctx context.Context, path []platform.Point, button platform.Button) error {
	g, err := in.d.begin(ctx, Gesture{Kind: "drag", Points: slices.Clone(path), Button: button})
	if err != nil {
		return err
	}
	if len(path) < 2 {
		return g.end(fmt.Errorf("%w: a drag needs two points, got %d", platform.ErrBadValue, len(path)))
	}
	if err := g.step(buttonName(button), &path[0]); err != nil {
		return g.end(err)
	}
	for i := range path[1:] {
		if err := g.step("", &path[i+1]); err != nil {
			return g.end(err)
		}
	}
	return g.end(nil)
}

func (in input) Chord(ctx context.Context, keys ...string) error {
	g, err := in.d.begin(ctx, Gesture{Kind: "chord", Keys: slices.Clone(keys)})
	if err != nil {
		return err
	}
	if len(keys) == 0 || slices.Contains(keys, "") {
		return g.end(fmt.Errorf("%w: empty key in chord %q", platform.ErrBadValue, keys))
	}
	for _, k := range keys {
		if err := g.step(k, nil); err != nil {
			return g.end(err)
		}
	}
	return g.end(nil)
}

// Type types text into the object that has the focus in the active window's process, when it
// is editable (its value grows by text).
func (in input) Type(ctx context.Context, text string) error {
	d := in.d
	g, err := d.begin(ctx, Gesture{Kind: "type", Text: text})
	if err != nil {
		return err
	}
	for range text {
		if err := g.step("", nil); err != nil {
			return g.end(err)
		}
	}
	d.mu.Lock()
	pid := 0
	for _, w := range d.windows {
		if w.Focused {
			pid = w.ProcessID
		}
	}
	n := d.nodes[d.focus[pid]]
	if n != nil && n.states["editable"] {
		v := text
		if n.value != nil {
			v = *n.value + text
		}
		n.value = &v
	}
	d.mu.Unlock()
	if n != nil {
		d.treeChanged(pid)
	}
	return g.end(nil)
}

func (in input) Held(ctx context.Context) ([]string, error) {
	d := in.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return nil, err
	}
	return slices.Clone(d.held), nil
}

// hold presses or releases one name across calls (Press, Release, ButtonDown, ButtonUp).
func (in input) hold(ctx context.Context, g Gesture, name string, down bool) error {
	d := in.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("%w: empty key name", platform.ErrBadValue)
	}
	if len(g.Points) > 0 {
		d.pointer = g.Points[0]
	}
	i := slices.Index(d.held, name)
	switch {
	case down && i < 0:
		d.held = append(d.held, name)
	case !down && i >= 0:
		d.held = slices.Delete(d.held, i, i+1)
	}
	d.gestures = append(d.gestures, g)
	return nil
}

func (in input) Press(ctx context.Context, key string) error {
	return in.hold(ctx, Gesture{Kind: "press", Keys: []string{key}}, key, true)
}

func (in input) Release(ctx context.Context, key string) error {
	return in.hold(ctx, Gesture{Kind: "release", Keys: []string{key}}, key, false)
}

func (in input) ButtonDown(ctx context.Context, p platform.Point, button platform.Button) error {
	return in.hold(ctx, Gesture{Kind: "buttondown", Points: []platform.Point{p}, Button: button}, buttonName(button), true)
}

func (in input) ButtonUp(ctx context.Context, p platform.Point, button platform.Button) error {
	return in.hold(ctx, Gesture{Kind: "buttonup", Points: []platform.Point{p}, Button: button}, buttonName(button), false)
}

func (in input) MoveTo(ctx context.Context, p platform.Point) error {
	d := in.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return err
	}
	d.pointer = p
	d.gestures = append(d.gestures, Gesture{Kind: "move", Points: []platform.Point{p}})
	return nil
}

func (in input) Pointer(ctx context.Context) (platform.Point, error) {
	d := in.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return platform.Point{}, err
	}
	return d.pointer, nil
}

func (in input) Scroll(ctx context.Context, dx, dy int) error {
	d := in.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return err
	}
	d.gestures = append(d.gestures, Gesture{Kind: "scroll", Points: []platform.Point{d.pointer}, DX: dx, DY: dy})
	return nil
}
