package testdesk

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcec/mcec/internal/paths"
)

// Stat reads a process's state, parent and process group from /proc; ok is false once it is gone.
func Stat(pid int) (state string, ppid, pgrp int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, 0, false
	}
	// pid (comm) state ppid pgrp …; comm may hold spaces, so split after the last ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 3 {
		return "", 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	return f[0], ppid, pgrp, true
}

// ChildPIDs lists the direct children of pid (a private desktop's processes, for mcec).
func ChildPIDs(pid int) []int {
	var out []int
	for _, p := range allPIDs() {
		if _, ppid, _, ok := Stat(p); ok && ppid == pid {
			out = append(out, p)
		}
	}
	return out
}

// DesktopPIDs lists what belongs to the private desktop of the mcec process: its children, the
// members of their process groups, and every process carrying the desktop's XDG_RUNTIME_DIR.
func DesktopPIDs(mcec int, desk string) []int {
	children := ChildPIDs(mcec)
	groups := map[int]bool{}
	for _, c := range children {
		if _, _, pg, ok := Stat(c); ok {
			groups[pg] = true
		}
	}
	out := slices.Clone(children)
	mark := []byte(paths.RuntimeVar + "=" + desk)
	for _, p := range allPIDs() {
		if slices.Contains(out, p) {
			continue
		}
		if _, _, pg, ok := Stat(p); ok && groups[pg] {
			out = append(out, p)
			continue
		}
		if env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "environ")); err == nil &&
			slices.ContainsFunc(bytes.Split(env, []byte{0}), func(kv []byte) bool { return bytes.Equal(kv, mark) }) {
			out = append(out, p)
		}
	}
	return out
}

// Running lists the pids that still run (zombies do not count: their reaper will come).
func Running(pids []int) []int {
	var out []int
	for _, p := range pids {
		if st, _, _, ok := Stat(p); ok && st != "Z" && st != "X" {
			out = append(out, p)
		}
	}
	return out
}

func allPIDs() []int {
	entries, _ := os.ReadDir("/proc")
	out := make([]int, 0, len(entries))
	for _, e := range entries {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, p)
		}
	}
	return out
}
