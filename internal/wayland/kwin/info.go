package kwin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/godbus/dbus/v5"
)

// Version is KWin's version ("5.27.5"), read from its support information.
func (c *Conn) Version(ctx context.Context) (string, error) {
	var info string
	if err := c.bus.Object(service, "/KWin").CallWithContext(ctx, "org.kde.KWin.supportInformation", 0).Store(&info); err != nil {
		return "", busErr(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "KWin version:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", errors.New("kwin: its support information names no version")
}

// Layout is the current keyboard layout as org.kde.keyboard names it ("de", "us(intl)"); ""
// with no error when KWin offers no such interface (it does only with several layouts set).
func (c *Conn) Layout(ctx context.Context) (string, error) {
	obj := c.bus.Object("org.kde.keyboard", "/Layouts")
	var index uint32
	if err := obj.CallWithContext(ctx, "org.kde.KeyboardLayouts.getLayout", 0).Store(&index); err != nil {
		var de dbus.Error
		if errors.As(err, &de) && (de.Name == "org.freedesktop.DBus.Error.ServiceUnknown" || de.Name == "org.freedesktop.DBus.Error.NameHasNoOwner") {
			return "", nil
		}
		return "", busErr(err)
	}
	var layouts []struct{ Short, Variant, Long string }
	if err := obj.CallWithContext(ctx, "org.kde.KeyboardLayouts.getLayoutsList", 0).Store(&layouts); err != nil {
		return "", busErr(err)
	}
	if int(index) >= len(layouts) {
		return "", fmt.Errorf("kwin: layout %d of %d", index, len(layouts))
	}
	l := layouts[index]
	if l.Variant != "" {
		return l.Short + "(" + l.Variant + ")", nil
	}
	return l.Short, nil
}
