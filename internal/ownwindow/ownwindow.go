// Package ownwindow names mcec's own windows (the consent dialog, internal/consent/screen) so the
// X11 window listing can leave them out: no tool lists, resolves or targets them. It is a leaf
// so both sides can import it without crossing the layering (internal/consent must not import
// internal/platform).
package ownwindow

import "os"

// Class is the WM_CLASS class of mcec's own windows.
const Class = "Mcec"

// Is reports whether a window claiming process pid (_NET_WM_PID) and of WM_CLASS class class is
// one of this process's own windows. The class check keeps windows a test process creates for
// itself (which claim its pid too) visible.
func Is(pid int, class string) bool { return pid == os.Getpid() && class == Class }
