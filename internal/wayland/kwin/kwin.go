// Package kwin talks to KWin, KDE Plasma's Wayland compositor, over the session bus: it runs
// short KWin scripts that answer in JSON (windows, window operations, change events), and takes
// screenshots through org.kde.KWin.ScreenShot2.
//
// KWin has no IPC that lists windows with their geometry (org_kde_plasma_window_management is
// for privileged clients only), but any client of the session bus may load a script, and a
// script may call any D-Bus method: each request is a script that calls back an object this
// package exports (shared/spec/wayland-notes.md §1.3). The scripting API is KWin 5.27's, with
// Plasma 6's names where they differ.
package kwin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	service       = "org.kde.KWin"
	scriptingPath = "/Scripting"
	scriptingIfc  = "org.kde.kwin.Scripting"
	replyPath     = "/org/mcec/KWin"
	replyIfc      = "org.mcec.KWin"
)

// ErrNoKWin says the session bus has no KWin on it.
var ErrNoKWin = errors.New("no KWin on the session bus (org.kde.KWin)")

// ScriptError is an exception a script threw inside KWin.
type ScriptError struct{ Message string }

func (e *ScriptError) Error() string { return "KWin script: " + e.Message }

// Conn is one connection to KWin. It is safe for concurrent use.
type Conn struct {
	bus *dbus.Conn
	dir string // private directory for script files, removed by Close

	seq     atomic.Uint64
	mu      sync.Mutex
	waiting map[string]chan reply
	events  map[string]chan struct{}
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *string         `json:"error"`
}

// Dial connects to the session bus at address and checks that KWin is on it.
func Dial(ctx context.Context, address string) (*Conn, error) {
	// Not dbus.WithContext: that closes the connection when ctx ends, and it outlives Dial.
	bus, err := dbus.Connect(address)
	if err != nil {
		return nil, fmt.Errorf("session bus %s: %w", address, err)
	}
	var has bool
	if err := bus.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, service).Store(&has); err != nil {
		bus.Close()
		return nil, fmt.Errorf("session bus: %w", err)
	}
	if !has {
		bus.Close()
		return nil, ErrNoKWin
	}
	dir, err := os.MkdirTemp("", "mcec-kwin-")
	if err != nil {
		bus.Close()
		return nil, err
	}
	c := &Conn{bus: bus, dir: dir, waiting: map[string]chan reply{}, events: map[string]chan struct{}{}}
	if err := bus.Export(receiver{c}, replyPath, replyIfc); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close closes the connection and removes the script files.
func (c *Conn) Close() error {
	return errors.Join(c.bus.Close(), os.RemoveAll(c.dir))
}

// Bus is the connection to the session bus, for callers that talk to KWin's other interfaces.
func (c *Conn) Bus() *dbus.Conn { return c.bus }

// receiver is the object scripts call back.
type receiver struct{ c *Conn }

// Reply receives a script's result: token names the request, body is its JSON.
func (r receiver) Reply(token, body string) *dbus.Error {
	r.c.mu.Lock()
	ch := r.c.waiting[token]
	delete(r.c.waiting, token)
	r.c.mu.Unlock()
	if ch == nil {
		return nil // the caller gave up
	}
	var rep reply
	if err := json.Unmarshal([]byte(body), &rep); err != nil {
		msg := "unreadable reply: " + err.Error()
		rep = reply{Error: &msg}
	}
	ch <- rep
	return nil
}

// Changed receives a watch script's signal that windows changed.
func (r receiver) Changed(token string) *dbus.Error {
	r.c.mu.Lock()
	ch := r.c.events[token]
	r.c.mu.Unlock()
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
	return nil
}

// Run runs body, the body of a JavaScript function, inside KWin and stores what it returns
// (serialized as JSON) into out. A thrown exception is a *ScriptError.
func (c *Conn) Run(ctx context.Context, body string, out any) error {
	token := "r" + strconv.FormatUint(c.seq.Add(1), 10)
	ch := make(chan reply, 1)
	c.mu.Lock()
	c.waiting[token] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, token)
		c.mu.Unlock()
	}()
	src := fmt.Sprintf(`(function () {
  var out;
  try { var v = (function () { %s })(); out = {result: v === undefined ? null : v}; }
  catch (e) { out = {error: String(e)}; }
  callDBus(%q, %q, %q, "Reply", %q, JSON.stringify(out));
})();
`, body, c.bus.Names()[0], replyPath, replyIfc, token)
	name, err := c.load(ctx, token, src)
	if err != nil {
		return err
	}
	defer c.unload(name)
	select {
	case rep := <-ch:
		if rep.Error != nil {
			return &ScriptError{Message: *rep.Error}
		}
		if out == nil {
			return nil
		}
		return json.Unmarshal(rep.Result, out)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watchArmWait bounds how long Watch waits for its script to be connected.
const watchArmWait = 10 * time.Second

// Watch loads a script that calls back whenever a window appears, goes, moves, is resized,
// minimized, maximized, activated or retitled; the channel has one value per burst until ctx
// ends, when the script is unloaded.
func (c *Conn) Watch(ctx context.Context) (<-chan struct{}, error) {
	token := "w" + strconv.FormatUint(c.seq.Add(1), 10)
	ch := make(chan struct{}, 1)
	c.mu.Lock()
	c.events[token] = ch
	c.mu.Unlock()
	src := fmt.Sprintf(`(function () {
  function changed() { callDBus(%[1]q, %[2]q, %[3]q, "Changed", %[4]q); }
  function follow(w) {
    [w.frameGeometryChanged, w.captionChanged, w.minimizedChanged, w.fullScreenChanged, w.clientMaximizedStateChanged]
      .forEach(function (s) { if (s) s.connect(changed); });
  }
  var list = workspace.windowList ? workspace.windowList() : workspace.clientList();
  list.forEach(follow);
  var added = workspace.windowAdded || workspace.clientAdded;
  var removed = workspace.windowRemoved || workspace.clientRemoved;
  var activated = workspace.windowActivated || workspace.clientActivated;
  added.connect(function (w) { follow(w); changed(); });
  removed.connect(changed);
  activated.connect(changed);
  changed(); // armed
})();
`, c.bus.Names()[0], replyPath, replyIfc, token)
	forget := func() {
		c.mu.Lock()
		delete(c.events, token)
		c.mu.Unlock()
	}
	name, err := c.load(ctx, token, src)
	if err != nil {
		forget()
		return nil, err
	}
	// KWin may run the script after start returns: a window that opened in between would be
	// missed (beside a second make test, a dialog's event never came). The script says when it
	// is connected; the watch counts from then.
	armed := time.NewTimer(watchArmWait)
	defer armed.Stop()
	select {
	case <-ch:
	case <-armed.C:
		c.unload(name)
		forget()
		return nil, fmt.Errorf("KWin did not start the window watch script within %v", watchArmWait)
	case <-ctx.Done():
		c.unload(name)
		forget()
		return nil, ctx.Err()
	}
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		defer func() {
			c.unload(name)
			c.mu.Lock()
			delete(c.events, token)
			c.mu.Unlock()
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				select {
				case out <- struct{}{}:
				default:
				}
			}
		}
	}()
	return out, nil
}

// load writes src to a file, loads it as a KWin script and starts it; name is its plugin name.
func (c *Conn) load(ctx context.Context, token, src string) (string, error) {
	name := fmt.Sprintf("mcec-%d-%s", os.Getpid(), token)
	file := filepath.Join(c.dir, name+".js")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		return "", err
	}
	obj := c.bus.Object(service, scriptingPath)
	var id int32
	if err := obj.CallWithContext(ctx, scriptingIfc+".loadScript", 0, file, name).Store(&id); err != nil {
		return "", busErr(err)
	}
	if id < 0 {
		return "", fmt.Errorf("KWin refused to load a script (%d)", id)
	}
	// Scripting.start runs every loaded script that is not running yet: ours, and at most
	// another client's that is about to be started anyway. Not the script's own object: its
	// path is made of an id KWin reuses (the number of scripts loaded), so while a watch script
	// lives a new script's object may fail to register and the call reaches the old one.
	if err := obj.CallWithContext(ctx, scriptingIfc+".start", 0).Err; err != nil {
		c.unload(name)
		return "", busErr(err)
	}
	return name, nil
}

// unload unloads a script, with a deadline of its own: it runs after the caller's may have ended.
// The file goes with it, not earlier: KWin reads it on a thread of its own after run.
func (c *Conn) unload(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), unloadTimeout)
	defer cancel()
	c.bus.Object(service, scriptingPath).CallWithContext(ctx, scriptingIfc+".unloadScript", 0, name)
	os.Remove(filepath.Join(c.dir, name+".js"))
}

// busErr names KWin's D-Bus errors.
func busErr(err error) error {
	var de dbus.Error
	if errors.As(err, &de) && de.Name == "org.freedesktop.DBus.Error.ServiceUnknown" {
		return ErrNoKWin
	}
	return fmt.Errorf("KWin: %w", err)
}
