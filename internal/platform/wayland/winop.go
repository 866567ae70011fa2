package wayland

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/wayland/swayipc"
)

// WindowOp changes a window through sway's commands. sway has no minimized or maximized state
// of its own: minimize moves the window to the scratchpad (hidden, as a minimized window is),
// maximize tiles it (mcec's desktop floats every other window, so it fills its workspace), and
// restore undoes either. Only floating windows can be moved or resized by position.
func (c *Conn) WindowOp(ctx context.Context, handle uint32, op platform.WindowOp) error {
	views, err := c.views(ctx)
	if err != nil {
		return err
	}
	var v *view
	for i := range views {
		if uint32(views[i].Node.ID) == handle {
			v = &views[i]
		}
	}
	if v == nil {
		return fmt.Errorf("%w: window %d", platform.ErrWindowClosed, handle)
	}
	sel := fmt.Sprintf("[con_id=%d] ", v.Node.ID)
	area := clientArea(v.Node)
	var cmd string
	switch op.Kind {
	case platform.OpMove, platform.OpResize:
		if !v.Floating || v.Scratchpad {
			return fmt.Errorf("%w: sway places a tiled or hidden window itself; restore it first (window action restore), then %s it",
				platform.ErrCompositorUnsupported, op.Kind)
		}
		// The container's rectangle holds the client area plus its border: move and size that.
		if op.Kind == platform.OpMove {
			cmd = sel + fmt.Sprintf("move absolute position %d %d", op.X-(area.X-v.Node.Rect.X), op.Y-(area.Y-v.Node.Rect.Y))
		} else {
			cmd = sel + fmt.Sprintf("resize set width %d px height %d px",
				op.Width+v.Node.Rect.Width-area.Width, op.Height+v.Node.Rect.Height-area.Height)
		}
	case platform.OpMinimize:
		if v.Scratchpad {
			return nil
		}
		cmd = sel + "move scratchpad"
	case platform.OpMaximize:
		cmd = sel + "fullscreen disable; " + sel + "floating disable"
		if v.Scratchpad {
			cmd = sel + "scratchpad show; " + cmd
		}
	case platform.OpRestore:
		switch {
		case v.Scratchpad:
			// scratchpad show brings it back floating, onto the focused workspace.
			cmd = sel + "scratchpad show"
		case v.Node.FullscreenMode != 0:
			cmd = sel + "fullscreen disable"
		case !v.Floating:
			cmd = sel + "floating enable"
		default:
			return nil
		}
	case platform.OpActivate:
		cmd = sel + "focus"
		if v.Scratchpad {
			cmd = sel + "scratchpad show; " + cmd
		}
	default:
		return fmt.Errorf("%w: window operation %q", platform.ErrUnsupported, op.Kind)
	}
	if err := c.ipc.Command(ctx, cmd); err != nil {
		var ce *swayipc.CommandError
		if errors.As(err, &ce) {
			return fmt.Errorf("%w: sway refused %q: %s", platform.ErrCompositorUnsupported, ce.Command, ce.Message)
		}
		return c.ipcErr(err)
	}
	return nil
}
