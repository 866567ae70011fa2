package console

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/estop"
)

// fakeFleet is one live instance whose console is another Server of this test.
type fakeFleet struct {
	inst    Instance
	console *Server
	fail    error
}

func (f *fakeFleet) Instances() []Instance { return []Instance{f.inst} }

func (f *fakeFleet) LoginURL(_ context.Context, id string) (string, error) {
	if id != f.inst.ID {
		return "", ErrNoInstance
	}
	if f.fail != nil {
		return "", f.fail
	}
	return f.console.LoginURL(), nil
}

func TestFleetOpensAnInstancesConsole(t *testing.T) {
	instance, _, _ := start(t)
	fleet := &fakeFleet{inst: Instance{ID: "inst-0123456789abcdef", Started: time.Now(), PID: 42, Port: 40000, Console: true},
		console: instance}
	parent := New(Options{Stop: estop.New(estop.Options{}), Fleet: fleet})
	if err := parent.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = parent.Close() })
	base := "http://" + parent.Addr()

	if code, _ := get(t, browser(t), base+"/api/fleet"); code != http.StatusUnauthorized {
		t.Errorf("the fleet without a login: %d, want 401", code)
	}
	if code, _ := get(t, browser(t), base+"/fleet/"+fleet.inst.ID); code != http.StatusUnauthorized {
		t.Errorf("opening an instance without a login: %d, want 401", code)
	}

	c := login(t, parent)
	code, body := get(t, c, base+"/api/state")
	var st State
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil || !st.Fleet {
		t.Errorf("state: %d %s, want fleet:true", code, body)
	}
	code, body = get(t, c, base+"/api/fleet")
	var list []Instance
	if code != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list) != 1 || list[0].ID != fleet.inst.ID || !list[0].Console {
		t.Fatalf("fleet: %d %s", code, body)
	}

	// Open: a redirect to a one-time link of the instance's own console, which logs in there.
	req, _ := http.NewRequest("GET", base+"/fleet/"+fleet.inst.ID, nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	link := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || link == "" {
		t.Fatalf("open: %d, Location %q", resp.StatusCode, link)
	}
	if code, _ := get(t, c, link); code != http.StatusSeeOther {
		t.Fatalf("the instance's link: %d, want the login's 303", code)
	}
	if code, _ := get(t, c, "http://"+instance.Addr()+"/api/state"); code != http.StatusOK {
		t.Errorf("the instance's console after its link: %d", code)
	}
	// Both sessions live side by side in one browser (one host, two ports).
	if code, _ := get(t, c, base+"/api/state"); code != http.StatusOK {
		t.Errorf("the parent's console after logging in to the instance's: %d, want 200 (its cookie was replaced)", code)
	}

	if code, _ := get(t, c, base+"/fleet/inst-ffffffffffffffff"); code != http.StatusNotFound {
		t.Errorf("an unknown instance: %d, want 404", code)
	}
	fleet.fail = errors.New("control socket gone")
	if code, body := get(t, c, base+"/fleet/"+fleet.inst.ID); code != http.StatusBadGateway {
		t.Errorf("an instance that gives no link: %d %s, want 502", code, body)
	}
}
