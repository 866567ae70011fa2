package takeover

import (
	"testing"
	"time"

	"github.com/mcec/mcec/internal/inputgate"
	"github.com/mcec/mcec/internal/sysload"
)

// A person's key or button takes control; it lasts while they keep pressing and comes back
// after the idle time; the console's Take control keeps it past their idling.
func TestPhysicalInput(t *testing.T) {
	changes := make(chan Status, 8)
	c := New(inputgate.New(nil, nil), nil, func(st Status) { changes <- st })
	// Long enough that a loaded machine does not stretch one press past it.
	c.idle = sysload.Scale(600 * time.Millisecond)
	next := func(want string) Status {
		t.Helper()
		select {
		case st := <-changes:
			if st.Holder != want {
				t.Fatalf("control went to %+v, want %s", st, want)
			}
			return st
		case <-time.After(5 * time.Second):
			t.Fatalf("control did not go to %s", want)
		}
		return Status{}
	}

	c.PhysicalInput()
	if st := next(Operator); st.How != HowPhysical {
		t.Fatalf("taken through %q", st.How)
	}
	// Pressing on keeps control: three presses a third of the idle time apart.
	for range 3 {
		select {
		case st := <-changes:
			t.Fatalf("control changed while the person kept pressing: %+v", st)
		case <-time.After(c.idle / 3):
		}
		c.PhysicalInput()
	}
	if st := next(Agents); st.How != HowPhysicalIdle {
		t.Fatalf("handed back through %q", st.How)
	}

	// Taken by the person, kept by the operator: idling no longer hands back.
	c.PhysicalInput()
	next(Operator)
	if st, err := c.Take(t.Context(), "console"); err != nil || st.How != "console" {
		t.Fatalf("the console's take over the person's: %+v %v", st, err)
	}
	select {
	case st := <-changes:
		t.Fatalf("control changed after the console took it: %+v", st)
	case <-time.After(3 * c.idle):
	}
	// While the operator holds control, a person's press changes nothing.
	c.PhysicalInput()
	if st, had := c.HandBack("console"); !had || st.Holder != Agents {
		t.Fatalf("hand back: %+v", st)
	}
	next(Agents)
}
