package swayipc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeSway answers each request with reply(type, payload) on a socket of its own.
func fakeSway(t *testing.T, reply func(typ uint32, payload []byte) (uint32, []byte)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ipc.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				for {
					typ, body, err := readMessage(c)
					if err != nil {
						return
					}
					rt, rb := reply(typ, body)
					if rb == nil {
						return
					}
					if writeMessage(c, rt, rb) != nil {
						return
					}
				}
			}()
		}
	}()
	return path
}

func TestRequests(t *testing.T) {
	path := fakeSway(t, func(typ uint32, payload []byte) (uint32, []byte) {
		switch typ {
		case typeGetVersion:
			return typ, []byte(`{"human_readable":"1.7","major":1,"minor":7}`)
		case typeGetTree:
			return typ, []byte(`{"id":1,"type":"root","nodes":[{"id":3,"type":"output","name":"HEADLESS-1","nodes":[{"id":4,"type":"workspace","name":"1",
				"rect":{"x":0,"y":0,"width":1280,"height":800},"nodes":[{"id":7,"type":"con","pid":42,"app_id":"tiled","name":"T"}],
				"floating_nodes":[{"id":8,"type":"floating_con","pid":43,"app_id":"a","name":"A","rect":{"x":10,"y":20,"width":300,"height":200}}]}]},
				{"id":2,"type":"output","name":"__i3","nodes":[{"id":5,"type":"workspace","name":"__i3_scratch","floating_nodes":[{"id":9,"type":"floating_con","pid":44,"window":77}]}]}]}`)
		case typeRunCommand:
			if strings.Contains(string(payload), "bogus") {
				return typ, []byte(`[{"success":true},{"success":false,"parse_error":true,"error":"Unknown command 'bogus'"}]`)
			}
			return typ, []byte(`[{"success":true}]`)
		}
		return typ, []byte(`[]`)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v, err := c.Version(ctx); err != nil || v.HumanReadable != "1.7" || v.Minor != 7 {
		t.Errorf("Version = %+v, %v", v, err)
	}
	tree, err := c.Tree(ctx)
	if err != nil {
		t.Fatal(err)
	}
	views := tree.Views()
	if len(views) != 3 {
		t.Fatalf("%d views, want 3: %+v", len(views), views)
	}
	if v := views[1]; v.Node.ID != 8 || !v.Floating || v.Scratchpad || v.Workspace != "1" || v.Output != "HEADLESS-1" {
		t.Errorf("floating view %+v", v)
	}
	if v := views[0]; v.Node.ID != 7 || v.Floating {
		t.Errorf("tiled view %+v", v)
	}
	if v := views[2]; !v.Scratchpad || v.Node.Window == nil || *v.Node.Window != 77 {
		t.Errorf("scratchpad view %+v", v)
	}
	if n := tree.FindID(8); n == nil || n.Name != "A" {
		t.Errorf("FindID(8) = %+v", n)
	}
	if err := c.Command(ctx, "[con_id=8] focus"); err != nil {
		t.Errorf("Command: %v", err)
	}
	var ce *CommandError
	if err := c.Command(ctx, "[con_id=8] focus; bogus"); !errors.As(err, &ce) || ce.Command != "bogus" || !ce.Parse {
		t.Errorf("a refused command: %v", err)
	}
}

func TestSubscribe(t *testing.T) {
	path := fakeSway(t, func(typ uint32, payload []byte) (uint32, []byte) {
		return typ, []byte(`{"success":true}`)
	})
	// The fake answers the subscription; events are written by hand on a second listener below.
	ctx, cancel := context.WithCancel(context.Background())
	events, err := Subscribe(ctx, path, "window")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case _, ok := <-events:
		for ok {
			_, ok = <-events
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the events channel stayed open after its context ended")
	}

	// Events are delivered decoded.
	dir := t.TempDir()
	l, err := net.Listen("unix", filepath.Join(dir, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if _, _, err := readMessage(c); err != nil {
			return
		}
		_ = writeMessage(c, typeSubscribe, []byte(`{"success":true}`))
		_ = writeMessage(c, eventBit|3, []byte(`{"change":"new","container":{"id":12,"pid":5,"name":"w"}}`))
	}()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	events, err = Subscribe(ctx2, filepath.Join(dir, "s.sock"), "window")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-events:
		if e.Type != "window" || e.Change != "new" || e.Container == nil || e.Container.ID != 12 {
			t.Errorf("event %+v", e)
		}
	case <-ctx2.Done():
		t.Fatal("no event")
	}
}

// TestHungCompositor: a request to a compositor that never answers ends with the context, and
// the next request dials again.
func TestHungCompositor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hung.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		// The first connection is never answered; the next ones are.
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			_, _ = io.Copy(io.Discard, c) // reads the request, never answers, until the client hangs up
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if typ, _, err := readMessage(c); err == nil {
					_ = writeMessage(c, typ, []byte(`{"human_readable":"1.7"}`))
				}
			}()
		}
	}()
	c, err := Dial(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.Version(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Version of a hung compositor = %v, want the deadline", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("the request took %v past its deadline", time.Since(start))
	}
	// The connection a cut request left is replaced by the next request.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if v, err := c.Version(ctx2); err != nil || v.HumanReadable != "1.7" {
		t.Errorf("Version after a cut request = %+v, %v; want a new connection's answer", v, err)
	}
}

// FuzzReadMessage: any bytes read as a message fail or decode, never panic or allocate past the
// limit.
func FuzzReadMessage(f *testing.F) {
	var b bytes.Buffer
	_ = writeMessage(&b, typeGetVersion, []byte(`{"major":1}`))
	f.Add(b.Bytes())
	f.Add([]byte("i3-ipc\xff\xff\xff\xff\x00\x00\x00\x00"))
	f.Add([]byte("i3-ipx"))
	f.Fuzz(func(t *testing.T, in []byte) {
		typ, body, err := readMessage(bytes.NewReader(in))
		if err == nil && len(body) > maxPayload {
			t.Fatalf("type %d: a body of %d bytes", typ, len(body))
		}
		var n Node
		if json.Unmarshal(body, &n) == nil {
			n.Views()
		}
	})
}
