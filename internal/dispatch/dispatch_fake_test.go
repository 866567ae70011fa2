package dispatch_test

import (
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/daemon/daemontest"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/fake"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/testdesk"
)

// A hung application holds up only the calls that wait on it: while one is stuck, the dispatcher
// serves other observations, also of other applications; once the application answers, the
// stuck call completes with its real answer. (On the whole daemon over the fake desktop.)
func TestHungApplicationHoldsOnlyItsCall(t *testing.T) {
	d := daemontest.StartWith(t, daemon.Config{Safety: safety.Settings{AllowAll: true}}, fake.Options{CallTimeout: time.Minute})
	const busy, idle = 5000001, 5000002
	for i, pid := range []int{busy, idle} {
		d.Fake.AddWindow(fake.WindowSpec{Title: "App", ProcessName: "app", PID: pid,
			Bounds: platform.Rect{X: 10 + 300*i, Y: 10, Width: 250, Height: 200},
			Root:   &fake.Elem{Role: "frame", Name: "App", Children: []*fake.Elem{{Role: "push button", Name: "OK"}}}})
	}
	d.Fake.Hang(busy, true)
	stuck := make(chan contract.Envelope, 1)
	go func() {
		env, _ := d.CallErr("find", map[string]any{"pid": busy, "element": map[string]any{"name": "OK"}})
		stuck <- env
	}()
	testdesk.WaitFor(t, 10*time.Second, "the find never reached the hung application", func() bool { return d.Fake.Stalled(busy) == 1 })

	var found struct{ Found bool }
	d.OK(t, "find", map[string]any{"pid": idle, "element": map[string]any{"name": "OK"}}, &found)
	var ws struct{ Count int }
	d.OK(t, "windows", map[string]any{}, &ws)
	if !found.Found || ws.Count != 2 {
		t.Errorf("while one call is stuck: found %v, %d windows", found.Found, ws.Count)
	}
	select {
	case env := <-stuck:
		t.Fatalf("the call on the hung application returned while it was hung: %+v", env.Err())
	default:
	}

	d.Fake.Hang(busy, false)
	select {
	case env := <-stuck:
		env = contracttest.Check(t, contracttest.CheckEnvelope(t, env))
		if err := env.DecodeResult(&found); err != nil || !env.OK() || !found.Found {
			t.Errorf("once the application answers: %+v, %v, found %v", env.Err(), err, found.Found)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stuck call never completed")
	}
}

// With the application still hung at the call's deadline, the call fails app-not-responding.
func TestHungApplicationIsATimeout(t *testing.T) {
	d := daemontest.StartWith(t, daemon.Config{Safety: safety.Settings{AllowAll: true}}, fake.Options{CallTimeout: 50 * time.Millisecond})
	h := d.Fake.AddWindow(fake.WindowSpec{Title: "App", ProcessName: "app", PID: 5000001, Bounds: platform.Rect{Width: 100, Height: 100},
		Root: &fake.Elem{Role: "frame", Name: "App"}})
	d.Fake.Hang(5000001, true)
	env := d.Call(t, "query", map[string]any{"handle": h})
	contracttest.Fail(t, env, contract.Timeout, contract.CodeAppNotResponding)
}
