package xinput2

import (
	"slices"
	"testing"
)

func TestParseDeviceState(t *testing.T) {
	rep := make([]byte, 32)
	rep[0] = pktReply
	rep[8] = 3
	key := make([]byte, 36)
	key[0], key[1], key[2] = 0, 36, 248
	key[4+37/8] |= 1 << (37 % 8) // Control_L
	key[4+50/8] |= 1 << (50 % 8) // Shift_L
	btn := make([]byte, 36)
	btn[0], btn[1], btn[2] = 1, 36, 10
	btn[4] |= 1 << 1 // button 1
	val := []byte{2, 12, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	rep = append(append(append(rep, key...), btn...), val...)
	st, err := parseDeviceState(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Keys, []byte{37, 50}) || !slices.Equal(st.Buttons, []byte{1}) {
		t.Errorf("state %+v", st)
	}
	for _, bad := range [][]byte{rep[:31], rep[:40], append(append([]byte{}, rep[:32]...), 0, 1)} {
		if _, err := parseDeviceState(bad); err == nil {
			t.Errorf("no error for % x", bad)
		}
	}
}
