package xinput2

import (
	"errors"
	"fmt"
)

// XI2 device events (XIDeviceEvent): what a window that selected them receives when a key is
// pressed while it has the focus, or a button over it. Unlike raw events they are delivered to
// one window, with the pointer position in that window's coordinates.
const (
	xiKeyPress    = 2
	xiButtonPress = 4

	// deviceEventLen is the fixed part of an XIDeviceEvent (XI2proto xXIDeviceEvent).
	deviceEventLen = 80
)

// parseDeviceEvent fills ev from an XIDeviceEvent (b is the whole GenericEvent).
func parseDeviceEvent(ev *Event, b []byte) error {
	if len(b) < deviceEventLen {
		return errors.New("short XIDeviceEvent")
	}
	ev.Device = le.Uint16(b[10:12])
	ev.Detail = le.Uint32(b[16:20])
	ev.Window = le.Uint32(b[24:28])
	ev.EventX = fp1616(le.Uint32(b[40:44]))
	ev.EventY = fp1616(le.Uint32(b[44:48]))
	ev.Source = le.Uint16(b[52:54])
	ev.Flags = le.Uint32(b[56:60])
	ev.Mods = le.Uint32(b[72:76]) // effective modifiers
	return nil
}

// fp1616 is the integer part of a signed 16.16 fixed-point value (rounded toward -inf).
func fp1616(v uint32) int { return int(int32(v) >> 16) }

// SelectWindowPresses selects XI2 key and button presses of every master device on window win
// (keys arrive while win has the keyboard focus, buttons when pressed over it), and device
// hierarchy changes on the root window.
func (c *Conn) SelectWindowPresses(win uint32) error {
	mask := uint32(1<<xiKeyPress | 1<<xiButtonPress)
	req := make([]byte, 12+8)
	req[0], req[1] = c.xiOpcode, 46 // XISelectEvents
	le.PutUint32(req[4:], win)
	le.PutUint16(req[8:], 1)
	le.PutUint16(req[12:], AllMasterDevices)
	le.PutUint16(req[14:], 1)
	le.PutUint32(req[16:], mask)
	hier := make([]byte, 12+8)
	hier[0], hier[1] = c.xiOpcode, 46
	le.PutUint32(hier[4:], c.setup.root)
	le.PutUint16(hier[8:], 1)
	le.PutUint16(hier[12:], AllDevices)
	le.PutUint16(hier[14:], 1)
	le.PutUint32(hier[16:], 1<<xiHierarchyEvent)
	return c.withDeadline(requestLimit, func() error {
		if _, err := c.send(req); err != nil {
			return err
		}
		if _, err := c.send(hier); err != nil {
			return err
		}
		// A round trip surfaces a BadWindow/BadValue of the selection.
		if _, err := c.QueryDevices(); err != nil {
			return fmt.Errorf("XISelectEvents: %w", err)
		}
		return nil
	})
}
