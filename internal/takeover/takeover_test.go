package takeover_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/inputgate"
	"github.com/mcec/mcec/internal/takeover"
)

func TestTakeAndHandBack(t *testing.T) {
	gate := inputgate.New(nil, nil)
	var told []string
	c := takeover.New(gate, nil, func(st takeover.Status) { told = append(told, st.Holder) })
	if st := c.Status(); st.Holder != takeover.Agents || c.Frozen("click") != nil {
		t.Fatalf("at start: %+v %v", st, c.Frozen("click"))
	}

	// An agent's gesture in progress is not cut: taking control waits for it.
	g, err := gate.Gesture(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err = c.Take(ctx, "console")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || c.Status().Holder != takeover.Agents {
		t.Fatalf("taking control over a running gesture: %v, holder %s", err, c.Status().Holder)
	}
	g.Release()

	st, err := c.Take(context.Background(), "console")
	if err != nil || st.Holder != takeover.Operator || st.How != "console" {
		t.Fatalf("take: %+v %v", st, err)
	}
	if again, err := c.Take(context.Background(), "console"); err != nil || again != st {
		t.Errorf("taking control twice: %+v %v", again, err)
	}
	var ce *contract.Error
	if err := c.Frozen("click"); !errors.As(err, &ce) || ce.Code != contract.CodeOperatorInControl {
		t.Errorf("an agent's action while the operator has control: %v", err)
	}
	// No agent gesture reaches the gate meanwhile.
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	if _, err := gate.Gesture(ctx); err == nil {
		t.Error("a gesture got the gate while the operator has control")
	}
	cancel()

	if st, had := c.HandBack("console"); !had || st.Holder != takeover.Agents {
		t.Fatalf("hand back: %+v %v", st, had)
	}
	if _, had := c.HandBack("console"); had {
		t.Error("handing back twice")
	}
	if c.Frozen("click") != nil {
		t.Error("still frozen after hand-back")
	}
	if got := strings.Join(told, ","); got != "operator,agents" {
		t.Errorf("told of %s, want each change once: operator,agents", got)
	}
	h, err := gate.Gesture(context.Background())
	if err != nil {
		t.Fatalf("the gate after hand-back: %v", err)
	}
	h.Release()
}

func TestOperatorIntervenedOncePerSession(t *testing.T) {
	c := takeover.New(inputgate.New(nil, nil), nil, nil)
	before := time.Now().Add(-time.Hour)
	if w := c.For("s1", before); w != nil {
		t.Fatalf("nobody took control, yet %v", w)
	}
	takeAndBack := func() {
		t.Helper()
		if _, err := c.Take(context.Background(), "console"); err != nil {
			t.Fatal(err)
		}
		if w := c.For("s1", before); w != nil {
			t.Errorf("told before the hand-back: %v", w)
		}
		c.HandBack("console")
	}
	takeAndBack()
	w := c.For("s1", before)
	if len(w) != 1 || w[0].Code != contract.WarnOperatorIntervened || !strings.Contains(w[0].Detail, "observe again") {
		t.Fatalf("the first call after the hand-back: %v", w)
	}
	if w := c.For("s1", before); w != nil {
		t.Errorf("told twice: %v", w)
	}
	if w := c.For("s2", time.Now().Add(time.Hour)); w != nil {
		t.Errorf("a session that began after the hand-back was told: %v", w)
	}
	takeAndBack()
	if w := c.For("s1", before); len(w) != 1 {
		t.Errorf("a second take-over was not told: %v", w)
	}
}
