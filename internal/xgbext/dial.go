package xgbext

import (
	"context"

	"github.com/jezek/xgb"
)

// Dial is xgb.NewConnDisplay bounded by ctx: xgb's handshake takes no deadline, so it runs on
// its own goroutine, and a connection that arrives after ctx ended is closed, never leaked.
func Dial(ctx context.Context, display string) (*xgb.Conn, error) {
	type dialed struct {
		c   *xgb.Conn
		err error
	}
	ch := make(chan dialed, 1)
	go func() {
		c, err := xgb.NewConnDisplay(display)
		ch <- dialed{c, err}
	}()
	select {
	case d := <-ch:
		return d.c, d.err
	case <-ctx.Done():
		go func() {
			if d := <-ch; d.c != nil {
				d.c.Close()
			}
		}()
		return nil, ctx.Err()
	}
}
