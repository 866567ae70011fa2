package wlclient

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/wayland/wire"
)

// textTypes are the MIME types of text, best first.
var textTypes = []string{"text/plain;charset=utf-8", "UTF8_STRING", "text/plain", "STRING", "TEXT"}

// maxClipboard bounds what ClipboardGet reads.
const maxClipboard = 16 << 20

// clipboard is the data-control device on the seat: it follows the selection, and serves
// mcec's own.
type clipboard struct {
	cl     *Client
	device uint32

	mu        sync.Mutex
	offers    map[uint32][]string // offers announced, with their MIME types
	selection uint32              // the offer that is the selection now (0: none)
	source    uint32              // mcec's source while it owns the selection
}

// clipboardDevice returns the data-control device, made on first use.
func (cl *Client) clipboardDevice(ctx context.Context) (*clipboard, error) {
	cl.mu.Lock()
	cb := cl.clip
	cl.mu.Unlock()
	if cb != nil {
		return cb, nil
	}
	mgr, err := cl.need(ifDataControl)
	if err != nil {
		return nil, err
	}
	seat, err := cl.need(ifSeat)
	if err != nil {
		return nil, err
	}
	cb = &clipboard{cl: cl, offers: map[uint32][]string{}}
	cb.device = cl.c.NewObject(cb.deviceEvent)
	if err := cl.c.Send(mgr, dataManagerGetDevice, wire.NewID(cb.device), wire.Object(seat)); err != nil {
		return nil, err
	}
	if err := cl.c.Roundtrip(ctx); err != nil { // the current selection
		return nil, err
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.clip == nil {
		cl.clip = cb
	}
	return cl.clip, nil
}

func (cb *clipboard) deviceEvent(op uint16, m *wire.Message) {
	switch op {
	case dataDeviceDataOffer:
		id := m.Uint()
		cb.mu.Lock()
		cb.offers[id] = nil
		cb.mu.Unlock()
		cb.cl.c.Handle(id, func(op uint16, m *wire.Message) {
			if op == dataOfferOffer {
				mime := m.String()
				cb.mu.Lock()
				cb.offers[id] = append(cb.offers[id], mime)
				cb.mu.Unlock()
			}
		})
	case dataDeviceSelection:
		id := m.Uint()
		cb.mu.Lock()

		cb.selection = id
		// Offers that are not the selection are of no use any more (the primary selection's
		// too: mcec does not read it).
		var drop []uint32
		for o := range cb.offers {
			if o != id {
				drop = append(drop, o)
			}
		}
		for _, o := range drop {
			delete(cb.offers, o)
		}
		cb.mu.Unlock()

		for _, o := range drop {
			_ = cb.cl.c.Send(o, dataOfferDestroy)
			cb.cl.c.Forget(o)
		}
	case dataDeviceFinished:
		cb.mu.Lock()
		cb.selection = 0
		cb.mu.Unlock()
	}
}

// ClipboardGet reads the selection as text ("" when there is none, or it holds no text).
func (cl *Client) ClipboardGet(ctx context.Context) (string, error) {
	cb, err := cl.clipboardDevice(ctx)
	if err != nil {
		return "", err
	}
	if err := cl.c.Roundtrip(ctx); err != nil { // the latest selection
		return "", err
	}
	cb.mu.Lock()
	offer, types := cb.selection, slices.Clone(cb.offers[cb.selection])
	cb.mu.Unlock()
	if offer == 0 {
		return "", nil
	}
	mime := ""
	for _, t := range textTypes {
		if slices.Contains(types, t) {
			mime = t
			break
		}
	}
	if mime == "" {
		return "", nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer r.Close()
	err = cl.c.Send(offer, dataOfferReceive, wire.String(mime), wire.FD(int(w.Fd())))
	w.Close() // the owner holds its own copy now
	if err != nil {
		return "", err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = r.SetReadDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = r.SetReadDeadline(time.Now()) })
	defer stop()
	b, err := io.ReadAll(io.LimitReader(r, maxClipboard+1))
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", err
	}
	if len(b) > maxClipboard {
		return "", fmt.Errorf("wayland: the clipboard holds more than %d bytes", maxClipboard)
	}
	return string(b), nil
}

// ClipboardSet makes mcec own the selection with text, served until another client takes it.
func (cl *Client) ClipboardSet(ctx context.Context, text string) error {
	cb, err := cl.clipboardDevice(ctx)
	if err != nil {
		return err
	}
	mgr, err := cl.need(ifDataControl)
	if err != nil {
		return err
	}
	var src uint32
	src = cl.c.NewObject(func(op uint16, m *wire.Message) {
		switch op {
		case dataSourceSend:
			_ = m.String() // the MIME type: every one offered is the same text
			f := m.File("clipboard")
			if f == nil {
				return
			}
			go func() { // never block the reader on a slow paster
				defer f.Close()
				_ = f.SetWriteDeadline(time.Now().Add(5 * time.Second))
				_, _ = io.WriteString(f, text)
			}()
		case dataSourceCancelled:
			_ = cl.c.Send(src, dataSourceDestroy)
			cl.c.Forget(src)
			cb.mu.Lock()
			if cb.source == src {
				cb.source = 0
			}
			cb.mu.Unlock()
		}
	})
	if err := cl.c.Send(mgr, dataManagerCreateSource, wire.NewID(src)); err != nil {
		return err
	}
	for _, t := range textTypes {
		if err := cl.c.Send(src, dataSourceOffer, wire.String(t)); err != nil {
			return err
		}
	}
	if err := cl.c.Send(cb.device, dataDeviceSetSelection, wire.Object(src)); err != nil {
		return err
	}
	cb.mu.Lock()
	cb.source = src
	cb.mu.Unlock()
	return cl.c.Roundtrip(ctx)
}
