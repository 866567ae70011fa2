package xinput2

import "errors"

// DeviceState is what one device holds down now: keycodes and pointer buttons.
type DeviceState struct {
	Keys    []byte // keycodes down
	Buttons []byte // buttons down (1 = left)
}

// QueryDeviceState reads which keys and buttons the device (a slave, e.g. an XTEST device)
// holds down, with XInput 1's QueryDeviceState: XI2 reports a device's buttons but not its keys,
// and the core protocol only the master's sum of every device.
func (c *Conn) QueryDeviceState(id uint16) (DeviceState, error) {
	if id > 255 {
		return DeviceState{}, errors.New("QueryDeviceState: XInput 1 device ids are 8-bit")
	}
	req := make([]byte, 8)
	req[0], req[1] = c.xiOpcode, 30 // X_QueryDeviceState
	req[4] = byte(id)
	var st DeviceState
	err := c.withDeadline(requestLimit, func() error {
		rep, err := c.roundTrip(req)
		if err != nil {
			return err
		}
		st, err = parseDeviceState(rep)
		return err
	})
	return st, err
}

// parseDeviceState reads a QueryDeviceState reply: a count of classes, then each class's id and
// length (in bytes), KeyState and ButtonState with a 32-byte bitmap of what is down.
func parseDeviceState(b []byte) (DeviceState, error) {
	var st DeviceState
	if len(b) < 32 || b[0] != pktReply {
		return st, errors.New("short QueryDeviceState reply")
	}
	n := int(b[8])
	off := 32
	for range n {
		if off+2 > len(b) {
			return st, errors.New("QueryDeviceState reply truncated")
		}
		class, length := b[off], int(b[off+1])
		if length < 2 || off+length > len(b) {
			return st, errors.New("QueryDeviceState reply has a bad class length")
		}
		if (class == 0 || class == 1) && length >= 36 { // KeyClass, ButtonClass
			count := int(b[off+2])
			bits := b[off+4 : off+36]
			for i := range min(count, 256) {
				if bits[i/8]&(1<<(i%8)) == 0 {
					continue
				}
				if class == 0 {
					st.Keys = append(st.Keys, byte(i))
				} else if i > 0 {
					st.Buttons = append(st.Buttons, byte(i))
				}
			}
		}
		off += length
	}
	return st, nil
}
