package headless

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"
)

// GNOME's Xwayland admits only clients that show the cookie in the authority file mutter wrote
// for it, while mcec's X11 client (jezek/xgb) reads cookies only from the file $XAUTHORITY of
// its own process names. The private desktop therefore lets its own user in by name (the
// server-interpreted "localuser" access, as `xhost +si:localuser:NAME` does), over one
// connection that shows the cookie: a few bytes of X11's connection setup and one request,
// written here because no X11 library at hand connects with a cookie it is given.

// allowOwnUser adds the running user to the access list of the X server on display, connecting
// with the MIT-MAGIC-COOKIE-1 in authFile. An X error (a refused request) comes before the
// reply, and fails it.
func allowOwnUser(ctx context.Context, display, authFile string) error {
	cookie, err := readCookie(authFile)
	if err != nil {
		return err
	}
	u, err := user.Current()
	if err != nil {
		return err
	}
	var dialer net.Dialer
	c, err := dialer.DialContext(ctx, "unix", filepath.Join("/tmp/.X11-unix", "X"+strings.TrimPrefix(display, ":")))
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	} else {
		c.SetDeadline(time.Now().Add(5 * time.Second))
	}
	le := binary.LittleEndian
	const name = "MIT-MAGIC-COOKIE-1"
	var b bytes.Buffer
	b.Write([]byte{'l', 0})
	b.Write(le.AppendUint16(nil, 11)) // protocol 11.0
	b.Write(le.AppendUint16(nil, 0))
	b.Write(le.AppendUint16(nil, uint16(len(name))))
	b.Write(le.AppendUint16(nil, uint16(len(cookie))))
	b.Write([]byte{0, 0})
	b.Write(padded([]byte(name)))
	b.Write(padded(cookie))
	if _, err := c.Write(b.Bytes()); err != nil {
		return err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(c, head); err != nil {
		return err
	}
	rest := make([]byte, 4*int(le.Uint16(head[6:])))
	if _, err := io.ReadFull(c, rest); err != nil {
		return err
	}
	if head[0] != 1 {
		return fmt.Errorf("the X server refused the cookie of %s: %q", authFile, bytes.TrimRight(rest[:min(int(head[1]), len(rest))], "\x00"))
	}
	// Run unprivileged, the Shell and its Xwayland are in a user namespace that maps this user to
	// root: the server sees our connections as root's.
	names := []string{u.Username}
	if os.Geteuid() != 0 {
		names = append(names, "root")
	}
	b.Reset()
	for _, name := range names {
		value := "localuser\x00" + name
		addr := padded([]byte(value))
		b.Write([]byte{109, 0}) // ChangeHosts, Insert
		b.Write(le.AppendUint16(nil, uint16(2+len(addr)/4)))
		b.Write([]byte{5, 0}) // ServerInterpreted
		b.Write(le.AppendUint16(nil, uint16(len(value))))
		b.Write(addr)
	}
	b.Write([]byte{43, 0, 1, 0}) // GetInputFocus: its reply says the ChangeHosts were handled
	if _, err := c.Write(b.Bytes()); err != nil {
		return err
	}
	reply := make([]byte, 32)
	if _, err := io.ReadFull(c, reply); err != nil {
		return err
	}
	if reply[0] != 1 {
		return fmt.Errorf("the X server refused to admit user %s (X error %d)", u.Username, reply[1])
	}
	return nil
}

// padded is b padded with zeros to a multiple of 4 bytes.
func padded(b []byte) []byte { return append(b, make([]byte, (4-len(b)%4)%4)...) }

// readCookie returns the first MIT-MAGIC-COOKIE-1 in an X authority file: entries of family,
// address, display number, name and data, each but the first a big-endian length and bytes.
func readCookie(file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	r := bytes.NewReader(data)
	field := func() ([]byte, error) {
		var n uint16
		if err := binary.Read(r, binary.BigEndian, &n); err != nil {
			return nil, err
		}
		v := make([]byte, n)
		_, err := io.ReadFull(r, v)
		return v, err
	}
	for {
		var family uint16
		if err := binary.Read(r, binary.BigEndian, &family); err != nil {
			break
		}
		var f [4][]byte
		for i := range f {
			if f[i], err = field(); err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
		}
		if string(f[2]) == "MIT-MAGIC-COOKIE-1" && len(f[3]) == 16 {
			return f[3], nil
		}
	}
	return nil, fmt.Errorf("%s holds no MIT-MAGIC-COOKIE-1", file)
}
