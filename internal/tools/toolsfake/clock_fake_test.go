package toolsfake_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/daemon/daemontest"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/fake"
)

// The tools' timers on the bubble's clock (testing/synctest): waits and settling take no real
// time and report exactly what the clock says.

func bareApp(t *testing.T) (*daemontest.Bare, uint32) {
	b := daemontest.NewBare(t, fake.Options{})
	h := b.Fake.AddWindow(fake.WindowSpec{Title: "Form", ProcessName: "form", PID: pid, Bounds: platform.Rect{X: 100, Y: 100, Width: 400, Height: 300},
		Root: &fake.Elem{Role: "frame", Name: "Form", Children: []*fake.Elem{
			{Role: "push button", Name: "Inert", Bounds: rect(10, 40, 80, 24), Actions: []string{"click"}},
		}}})
	return b, h
}

func TestWaitForTimeoutOnTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := bareApp(t)
		start := time.Now()
		env := b.Call(t, "wait-for", map[string]any{"pid": pid, "element": map[string]any{"name": "Never"}, "timeout": 5000})
		fails(t, env, contract.Timeout, contract.CodeWaitConditionTimeout)
		if took := time.Since(start); took < 5*time.Second || took > 5*time.Second+100*time.Millisecond {
			t.Errorf("a 5000 ms wait took %v on the clock", took)
		}
	})
}

func TestWaitForWokenAtTheChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, h := bareApp(t)
		go func() {
			// Off the fallback poll's grid (250 ms), so the event, not a poll, finds it.
			time.Sleep(2010 * time.Millisecond)
			_, _ = b.Fake.AddChild(b.Fake.Ref(h, "Form"), &fake.Elem{Role: "label", Name: "Done"})
		}()
		var res findResult
		env := b.Call(t, "wait-for", map[string]any{"pid": pid, "element": map[string]any{"name": "Done"}, "timeout": 10000})
		if err := env.DecodeResult(&res); err != nil || !env.OK() || !res.Found {
			t.Fatalf("%v %+v %+v", err, env.Err(), res)
		}
		var waited struct {
			Waited struct {
				WaitedMs int64 `json:"waitedMs"`
			} `json:"waited"`
		}
		_ = env.DecodeResult(&waited)
		if ms := waited.Waited.WaitedMs; ms != 2010 || res.Waited.EventWakeups < 1 {
			t.Errorf("found after %d ms with %d event wake-ups; want at 2010 ms, woken by the change", ms, res.Waited.EventWakeups)
		}
	})
}

func TestSettleOnTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := bareApp(t)
		start := time.Now()
		var res invokeResult
		env := b.Call(t, "invoke", map[string]any{"pid": pid, "element": map[string]any{"name": "Inert"}, "via": "accessibility", "settle": 500})
		if err := env.DecodeResult(&res); err != nil || !env.OK() {
			t.Fatalf("%v %+v", err, env.Err())
		}
		took := time.Since(start)
		if res.Effect == nil || time.Duration(res.Effect.SettledMs)*time.Millisecond > took || took > 500*time.Millisecond {
			t.Errorf("settled after %v by its report, %v on the clock, settle 500 ms", time.Duration(res.Effect.SettledMs)*time.Millisecond, took)
		}
		if !res.Effect.Settled {
			t.Errorf("a UI without events did not count as settled: %+v", res.Effect)
		}
	})
}
