package xgbext

import "os"

// mcec's own windows (the consent dialog, internal/consent/screen) are named so the X11 window
// listing can leave them out: no tool lists, resolves or targets them. Both sides import this
// leaf package without crossing the layering (internal/consent must not import
// internal/platform).

// OwnClass is the WM_CLASS class of mcec's own windows.
const OwnClass = "Mcec"

// IsOwnWindow reports whether a window claiming process pid (_NET_WM_PID) and of WM_CLASS class
// class is one of this process's own windows. The class check keeps windows a test process
// creates for itself (which claim its pid too) visible.
func IsOwnWindow(pid int, class string) bool { return pid == os.Getpid() && class == OwnClass }
