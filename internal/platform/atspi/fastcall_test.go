package atspi

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestFastPathSameResults checks that the fast connection changes nothing but speed: the
// cache decoded by hand equals godbus's decoding, and whole trees read with and without the
// fast connection are identical.
func TestFastPathSameResults(t *testing.T) {
	w, frame := factoryWalker(t)
	c := w.c
	if c.fast == nil {
		t.Fatal("no fast connection to the accessibility bus")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Both decoders read the same bytes (the application's states may change between two
	// calls): the body of a live reply, wrapped in a message for godbus.
	rep, _, err := c.fastCall(ctx, c.fast, w.app.Bus, cachePath, ifCache, "GetItems")
	if err != nil {
		t.Fatal(err)
	}
	mine, err := decodeCacheItems(rep)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	m := &dbus.Message{Type: dbus.TypeMethodReply, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldReplySerial: dbus.MakeVariant(uint32(1)),
		dbus.FieldSignature:   dbus.MakeVariant(dbus.ParseSignatureMust(cacheItemSig)),
	}}
	if err := m.EncodeTo(&buf, binary.LittleEndian); err != nil { // x86 applications answer little-endian
		t.Fatal(err)
	}
	raw := append(buf.Bytes(), rep.Body...)
	binary.LittleEndian.PutUint32(raw[4:8], uint32(len(rep.Body)))
	m, err = dbus.DecodeMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	call := &dbus.Call{Body: m.Body}
	var theirs []cacheItem
	if err := dbus.Store(call.Body, &theirs); err != nil {
		t.Fatal(err)
	}
	if len(mine) < 100 || len(mine) != len(theirs) {
		t.Fatalf("%d items by hand, %d by godbus", len(mine), len(theirs))
	}
	for i := range mine {
		a, b := mine[i], theirs[i]
		if len(a.Ifaces) == 0 && len(b.Ifaces) == 0 {
			a.Ifaces, b.Ifaces = nil, nil
		}
		if len(a.States) == 0 && len(b.States) == 0 {
			a.States, b.States = nil, nil
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("item %d:\n by hand %+v\n godbus  %+v", i, a, b)
		}
	}

	pid, err := c.pid(ctx, w.app.Bus)
	if err != nil {
		t.Fatal(err)
	}
	bounds := *frame.extents
	tree := func() string {
		t.Helper()
		tr, err := c.Tree(ctx, platform.Window{ProcessID: pid, Bounds: bounds}, platform.TreeLimits{MaxDepth: 100, MaxNodes: 100000})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tr)
		return string(b)
	}
	// The application may still be settling (states of its title bar change right after
	// it maps), so compare pairs until one agrees.
	var fast, slow string
	testdesk.WaitFor(t, 20*time.Second, "the same tree with and without the fast connection", func() bool {
		fast = tree()
		fc := c.fast
		c.fast = nil
		slow = tree()
		c.fast = fc
		return fast == slow
	})
}
