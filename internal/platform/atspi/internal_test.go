package atspi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/errmap"
	"github.com/mcec/mcec/internal/platform"
)

func TestEnumerationTables(t *testing.T) {
	// ATSPI_ROLE_LAST_DEFINED and ATSPI_STATE_LAST_DEFINED of at-spi2-core 2.46.
	if len(roleNames) != 130 || len(stateNames) != 44 {
		t.Fatalf("%d roles, %d states; want 130, 44", len(roleNames), len(stateNames))
	}
	for i, want := range map[int]string{7: "check box", 23: "frame", 37: "page tab", 40: "password text",
		43: "push button", 62: "toggle button", 75: "application", 79: "entry", 129: "push button menu"} {
		if roleNames[i] != want {
			t.Errorf("role %d = %q, want %q", i, roleNames[i], want)
		}
	}
	for i, want := range map[int]string{1: "active", 4: "checked", 6: "defunct", 25: "showing",
		26: "single-line", 30: "visible", 31: "manages-descendants", 32: "indeterminate", 43: "read-only"} {
		if stateNames[i] != want {
			t.Errorf("state %d = %q, want %q", i, stateNames[i], want)
		}
	}
	if roleNames[roleComboBox] != "combo box" || roleNames[rolePasswordText] != "password text" || roleNames[roleTableCell] != "table cell" {
		t.Error("role constants")
	}
	for i, want := range map[int]string{stateEditable: "editable", stateEnabled: "enabled", stateExpandable: "expandable",
		stateExpanded: "expanded", stateFocusable: "focusable", stateFocused: "focused", stateSensitive: "sensitive"} {
		if stateNames[i] != want {
			t.Errorf("state constant %d = %q, want %q", i, stateNames[i], want)
		}
	}
	if got, ok := roleName(500); ok || got != "role 500" {
		t.Errorf("roleName(500) = %q, %v", got, ok)
	}
}

func TestControlTypes(t *testing.T) {
	custom := []string{"invalid", "focus traversable", "unknown", "extended", "redundant object", "audio", "video"}
	for _, r := range roleNames {
		ct, ok := controlTypes[r]
		if !ok && !slices.Contains(custom, r) {
			t.Errorf("role %q has no control type", r)
		}
		if ControlType(r) == "" || (ok && ct != ControlType(r)) {
			t.Errorf("ControlType(%q) = %q", r, ControlType(r))
		}
	}
	for r := range controlTypes {
		if !slices.Contains(roleNames[:], r) {
			t.Errorf("control type for unknown role %q", r)
		}
	}
	for role, want := range map[string]string{"push button": "Button", "page tab": "TabItem",
		"password text": "Edit", "table cell": "DataItem", "frame": "Window", "no such role": "Custom"} {
		if got := ControlType(role); got != want {
			t.Errorf("ControlType(%q) = %q, want %q", role, got, want)
		}
	}
}

func TestStateBits(t *testing.T) {
	b := bitsFrom([]uint32{1<<4 | 1<<25, 1 | 1<<20})
	got := b.set()
	want := platform.StateSet{"checked": true, "showing": true, "indeterminate": true}
	if len(got) != len(want) {
		t.Fatalf("set = %v, want %v (bits past the table are left out)", got, want)
	}
	for k := range want {
		if !got[k] {
			t.Errorf("missing %q in %v", k, got)
		}
	}
	if !b.has(stateShowing) || b.has(stateDefunct) || bitsFrom(nil).has(stateShowing) {
		t.Error("has")
	}
}

func ref(n int) objRef {
	return objRef{":1.5", dbus.ObjectPath(fmt.Sprintf("%s%d", accessiblePrefix, n))}
}

func TestBuildSnapshot(t *testing.T) {
	app := objRef{":1.5", "/org/a11y/atspi/accessible/root"}
	items := []cacheItem{
		{Obj: app, Parent: objRef{"org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root"}, ChildCount: 1, Role: 75},
		{Obj: ref(1), Parent: app, Index: 0, ChildCount: 3, Role: 23},
		{Obj: ref(4), Parent: ref(1), Index: 2, Role: 43},
		{Obj: ref(2), Parent: ref(1), Index: 0, Role: 43},
		{Obj: objRef{"", ref(3).Path}, Parent: ref(1), Index: 1, Role: 43}, // bus left out: the app's
		{Obj: ref(5), Parent: ref(1), Index: 3, ChildCount: -1, Role: 55, States: []uint32{1 << stateManagesDescendants, 0}},
		{Obj: ref(6), Parent: ref(5), Index: 0, ChildCount: 2, Role: 39}, // one child not cached
		{Obj: ref(7), Parent: ref(6), Index: 0, Role: 43},
		// A scrolled window whose scroll bars say -1, and a box whose indexes are in order.
		{Obj: ref(8), Parent: ref(14), Index: 1, ChildCount: 2, Role: 96}, // parent not cached
		{Obj: ref(9), Parent: ref(8), Index: -1, Role: 48},
		{Obj: ref(10), Parent: ref(8), Index: 0, Role: 127},
		{Obj: ref(11), Parent: ref(10), Index: 0, ChildCount: 2, Role: 39},
		{Obj: ref(12), Parent: ref(11), Index: 1, Role: 43},
		{Obj: ref(13), Parent: ref(11), Index: 0, Role: 43},
	}
	snap := buildSnapshot(":1.5", items)
	frame := snap[ref(1)]
	if frame == nil || !slices.Equal(frame.children, []objRef{ref(2), ref(3), ref(4), ref(5)}) {
		t.Fatalf("frame children %v", frame)
	}
	if frame.childrenComplete {
		t.Error("frame: 4 cached children but a count of 3 must not count as complete")
	}
	if !snap[app].childrenComplete || snap[app].children[0] != ref(1) {
		t.Errorf("app: %+v", snap[app])
	}
	if md := snap[ref(5)]; !md.managesDescendants() || md.childCount != -1 || md.childrenComplete {
		t.Errorf("table: %+v", md)
	}
	if p := snap[ref(6)]; p.childrenComplete {
		t.Errorf("panel with an uncached child: %+v", p)
	}
	if leaf := snap[ref(7)]; !leaf.childrenComplete || leaf.role != 43 {
		t.Errorf("leaf: %+v", leaf)
	}
	if sw := snap[ref(8)]; sw.childrenComplete {
		t.Errorf("a child's index -1 must not count as its place: %+v", sw)
	}
	if box := snap[ref(11)]; !box.childrenComplete || !slices.Equal(box.children, []objRef{ref(13), ref(12)}) {
		t.Errorf("box with indexes 0, 1: %+v", box)
	}
	frame2 := buildSnapshot(":1.5", []cacheItem{items[0], {Obj: ref(1), Parent: app, ChildCount: 1, Role: 23},
		{Obj: ref(2), Parent: ref(1), Index: 0, Role: 43}})
	if f := frame2[ref(1)]; f.childrenComplete {
		t.Errorf("a window's children must be listed by a call: %+v", f)
	}
	if a := frame2[app]; !a.childrenComplete {
		t.Errorf("app: %+v", a)
	}
}

func TestRun(t *testing.T) {
	t.Run("bounded and complete", func(t *testing.T) {
		var cur, peak, done atomic.Int64
		jobs := make([]job, 200)
		for i := range jobs {
			jobs[i] = func(context.Context) error {
				n := cur.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(time.Millisecond)
				cur.Add(-1)
				done.Add(1)
				return nil
			}
		}
		if err := run(context.Background(), nil, jobs); err != nil || done.Load() != 200 || peak.Load() > int64(maxInFlight) {
			t.Errorf("err %v done %d peak %d", err, done.Load(), peak.Load())
		}
	})
	t.Run("first error cancels the rest", func(t *testing.T) {
		boom := errors.New("boom")
		var ran atomic.Int64
		jobs := []job{func(context.Context) error { return boom }}
		for range 1000 {
			jobs = append(jobs, func(ctx context.Context) error {
				ran.Add(1)
				<-ctx.Done()
				return ctx.Err()
			})
		}
		if err := run(context.Background(), nil, jobs); err != boom {
			t.Errorf("err %v", err)
		}
		if ran.Load() >= 1000 {
			t.Errorf("%d jobs ran after the error", ran.Load())
		}
	})
	t.Run("caller cancellation", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := run(ctx, nil, []job{func(context.Context) error { return nil }}); !errors.Is(err, context.Canceled) {
			t.Errorf("err %v", err)
		}
	})
}

func TestClassify(t *testing.T) {
	c := &Client{opts: Options{CallTimeout: time.Second}}
	for _, tc := range []struct {
		err  error
		want failure
		is   error
	}{
		{context.DeadlineExceeded, failHung, platform.ErrAppNotResponding},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.NoReply"}, failHung, platform.ErrAppNotResponding},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.AccessDenied"}, failDenied, platform.ErrElevated},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.UnknownObject"}, failDead, nil},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.UnknownMethod"}, failNoIface, nil},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.ServiceUnknown"}, failGone, platform.ErrWindowClosed},
		{dbus.ErrClosed, failClosed, platform.ErrAtspiUnavailable},
		{&net.OpError{Op: "write", Net: "unix", Err: net.ErrClosed}, failClosed, platform.ErrAtspiUnavailable},
		{context.Canceled, failCanceled, context.Canceled},
		{errors.New("other"), failOther, nil},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
		if tc.is != nil {
			if err := c.callError(tc.err, time.Second, ":1.5", "/x", "M"); !errors.Is(err, tc.is) {
				t.Errorf("callError(%v) = %v, want %v", tc.err, err, tc.is)
			}
		}
	}
}

func TestPasswordMasked(t *testing.T) {
	w := &walker{c: &Client{}}
	pw := &node{ref: ref(1), info: &objInfo{role: rolePasswordText, ifaces: hasText | hasEditableText, idKnown: true}}
	entry := &node{ref: ref(2), info: &objInfo{role: 79, ifaces: hasText, idKnown: true}}
	jobs := w.enrichJobs([]*node{pw, entry})
	if pw.value == nil || *pw.value != MaskedValue {
		t.Fatalf("password value %v", pw.value)
	}
	if jobs.size() != 1 {
		t.Errorf("%d jobs; only the entry's text should be read", jobs.size())
	}
	tree := &platform.Node{Role: "frame", Children: []*platform.Node{
		{Role: "password text", Value: pw.value},
		{Role: "entry", Value: new(string)},
	}}
	if n := secretsMasked(tree); n != 1 {
		t.Errorf("SecretsMasked = %d", n)
	}
}

func TestTextHelpers(t *testing.T) {
	if got := truncateRunes("héllo wörld", 4); got != "héll" {
		t.Errorf("truncateRunes = %q", got)
	}
	if got := truncateRunes("abc", 4); got != "abc" {
		t.Errorf("truncateRunes = %q", got)
	}
	multi := &objInfo{role: 61} // "text", a text view
	single := &objInfo{role: 61, states: bitsFrom([]uint32{1 << stateSingleLine})}
	if shortText(multi) || !shortText(single) || !shortText(&objInfo{role: 29}) {
		t.Error("shortText")
	}
}

// Every failure type of this backend maps onto its contract code through errmap, which finds a
// platform sentinel with errors.As: a type that only matched its sentinel in an Is method was
// answered unhandled-exception (the soak suite caught it on a wait-for of an app without a tree).
func TestFailuresCarryTheirCodes(t *testing.T) {
	cases := []struct {
		err  error
		code contract.Code
	}{
		{&notRegistered{pid: 7}, contract.CodeNoAccessibleTree},
		{&notRegistered{pid: 7, frameless: true}, contract.CodeNoAccessibleTree},
		{&errFrameAmbiguous{}, contract.CodeFrameAmbiguous},
	}
	for _, c := range cases {
		if got := errmap.ToContract(c.err, errmap.Tools); got.Code != c.code {
			t.Errorf("%T %q maps to %s, want %s", c.err, c.err, got.Code, c.code)
		}
	}
	if !errors.Is(&notRegistered{}, ErrNotRegistered) {
		t.Error("notRegistered is no longer ErrNotRegistered")
	}
}

// TestSnapshotTimeoutGrowsWithTheCache: a first GetItems and a small application keep the call
// deadline (a hung one costs one CallTimeout); a large one gets one per started thousand
// objects, at most four.
func TestSnapshotTimeoutGrowsWithTheCache(t *testing.T) {
	c := &Client{opts: Options{CallTimeout: 2 * time.Second}, cached: map[string]int{}, unstretched: true}
	for _, tt := range []struct {
		objects int
		want    time.Duration
	}{{0, 2 * time.Second}, {999, 2 * time.Second}, {2200, 6 * time.Second}, {50000, 8 * time.Second}} {
		if tt.objects > 0 {
			c.sawCache(":1.9", tt.objects)
		}
		if got := c.snapshotTimeout(":1.9"); got != tt.want {
			t.Errorf("after a cache of %d objects: %v, want %v", tt.objects, got, tt.want)
		}
	}
	if got := c.snapshotTimeout(":1.10"); got != 2*time.Second {
		t.Errorf("an application never asked: %v", got)
	}
}

// TestRefAliases: GTK 4's long paths get short refs that decode back, stay the same for the
// same object, never point elsewhere, and end with their application.
func TestRefAliases(t *testing.T) {
	c := &Client{}
	gtk4 := func(uuid string) objRef {
		return objRef{":1.6", dbus.ObjectPath("/org/gnome/Calculator/a11y/" + uuid)}
	}
	a, b := gtk4("927af90a_16db_456f_baeb_2195900794aa"), gtk4("3de0a9f1_b3c4_4d5b_b2f7_b37422e3253b")
	if got := c.refOf(a); got != "1.6:~1" {
		t.Errorf("first alias %q", got)
	}
	if got := c.refOf(b); got != "1.6:~2" {
		t.Errorf("second alias %q", got)
	}
	if got := c.refOf(a); got != "1.6:~1" {
		t.Errorf("the same object again: %q", got)
	}
	if got := c.refOf(objRef{":1.6", "/org/a11y/atspi/accessible/42"}); got != "1.6:42" {
		t.Errorf("an abbreviated path is no alias: %q", got)
	}
	for ref, want := range map[string]objRef{"1.6:~2": b, FormatRef(a.Bus, a.Path): a, "1.6:42": {":1.6", "/org/a11y/atspi/accessible/42"}} {
		bus, path, err := c.parseRef(ref)
		if err != nil || (objRef{bus, path}) != want {
			t.Errorf("parseRef(%q) = %s %s %v, want %v", ref, bus, path, err, want)
		}
	}
	for _, bad := range []string{"1.6:~", "1.6:~x", "1.6:~01", "1.6:~-1", "1.6:~+1", "1.6:~1/2", ":~1"} {
		if _, _, err := c.parseRef(bad); !errors.Is(err, platform.ErrBadRef) {
			t.Errorf("parseRef(%q): %v, want ErrBadRef", bad, err)
		}
	}
	for _, gone := range []string{"1.6:~3", "1.7:~1"} {
		if _, _, err := c.parseRef(gone); !errors.Is(err, platform.ErrElementStale) {
			t.Errorf("parseRef(%q): %v, want ErrElementStale", gone, err)
		}
	}
	c.aliases.forget(map[string]bool{":1.9": true})
	if _, _, err := c.parseRef("1.6:~1"); !errors.Is(err, platform.ErrElementStale) {
		t.Errorf("an alias outlived its application: %v", err)
	}
	if got := c.refOf(b); got != "1.6:~1" {
		t.Errorf("after the application left, counting starts again: %q", got)
	}
}

// FuzzParseAliasRef: whatever parseRef accepts turns back into the same ref; everything else is a
// bad or a stale ref, never a panic.
func FuzzParseAliasRef(f *testing.F) {
	for _, s := range []string{"1.6:~1", "1.6:~2", "1.6:~99", "1.6:42", "1.6:/org/x/a11y/ab", ":~", "~", "1.6:~", "x:~1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		c := &Client{}
		c.refOf(objRef{":1.6", "/org/x/a11y/ab"})
		bus, path, err := c.parseRef(ref)
		if err != nil {
			if !errors.Is(err, platform.ErrBadRef) && !errors.Is(err, platform.ErrElementStale) {
				t.Fatalf("parseRef(%q): %v is neither a bad nor a stale ref", ref, err)
			}
			return
		}
		if got := c.refOf(objRef{bus, path}); got != ref && FormatRef(bus, path) != ref {
			t.Fatalf("parseRef(%q) = %s %s, which formats as %q", ref, bus, path, got)
		}
	})
}
