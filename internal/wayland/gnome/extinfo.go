package gnome

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// ExtensionState is GNOME Shell's state of an extension: its ExtensionState enum, whose
// numbers are the same from GNOME 42 on (45 renamed ENABLED and DISABLED to ACTIVE and
// INACTIVE).
type ExtensionState int

const (
	StateUnknown     ExtensionState = 0 // the Shell does not know it: not installed when it started
	StateEnabled     ExtensionState = 1
	StateDisabled    ExtensionState = 2
	StateError       ExtensionState = 3
	StateOutOfDate   ExtensionState = 4
	StateDownloading ExtensionState = 5
	StateInitialized ExtensionState = 6 // loaded, never enabled
	StateDisabling   ExtensionState = 7
	StateEnabling    ExtensionState = 8
	StateUninstalled ExtensionState = 99
)

const extensionsIface = "org.gnome.Shell.Extensions"

// ExtensionInfo is what GNOME Shell says of one extension.
type ExtensionInfo struct {
	State ExtensionState
	// Error is the Shell's error for StateError (the exception enable threw, a syntax error).
	Error string
}

// Extension asks GNOME Shell what it made of the extension uuid, through
// org.gnome.Shell.Extensions (open to every program of the session, as gnome-extensions
// uses it), on the session bus at address.
func Extension(ctx context.Context, address, uuid string) (ExtensionInfo, error) {
	bus, err := dbus.Connect(address, dbus.WithContext(ctx))
	if err != nil {
		return ExtensionInfo{}, fmt.Errorf("session bus %s: %w", address, err)
	}
	defer bus.Close()
	var info map[string]dbus.Variant
	err = bus.Object("org.gnome.Shell", "/org/gnome/Shell").CallWithContext(ctx, extensionsIface+".GetExtensionInfo", 0, uuid).Store(&info)
	if err != nil {
		return ExtensionInfo{}, fmt.Errorf("gnome: GetExtensionInfo: %w", err)
	}
	var out ExtensionInfo
	if v, ok := info["state"].Value().(float64); ok {
		out.State = ExtensionState(v)
	}
	out.Error, _ = info["error"].Value().(string)
	return out, nil
}
