// Package procname names processes as people know them: /proc/PID/comm, completed where the
// kernel cut it (both display backends list windows by the program that owns them).
package procname

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Of is the program's name: /proc/PID/comm, which the kernel cuts to 15 bytes, made
// whole again from argv[0] or the executable when one of them starts with it (so
// "gtk3-widget-fac" reads "gtk3-widget-factory", while a script keeps its own name rather than
// its interpreter's). Empty when the pid is unknown or not visible to us.
func Of(pid int) string {
	if pid <= 0 {
		return ""
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	b, err := os.ReadFile(dir + "comm")
	if err != nil {
		return ""
	}
	comm := strings.TrimSpace(string(b))
	const commMax = 15 // TASK_COMM_LEN - 1
	if len(comm) < commMax {
		return comm
	}
	// A cut name is completed from cmdline or exe, two more reads on every listing; the answer
	// is kept while the pid still carries the same comm.
	longNames.mu.Lock()
	got, ok := longNames.m[pid]
	longNames.mu.Unlock()
	if ok && got.comm == comm {
		return got.name
	}
	name := longName(dir, comm)
	if name == comm {
		return name // nothing completed it (the process may be leaving): ask again next time
	}
	longNames.mu.Lock()
	if longNames.m == nil || len(longNames.m) >= maxLongNames {
		longNames.m = make(map[int]commName)
	}
	longNames.m[pid] = commName{comm, name}
	longNames.mu.Unlock()
	return name
}

// longNames are the completed names of processes whose comm the kernel cut (Of).
var longNames struct {
	mu sync.Mutex
	m  map[int]commName
}

// maxLongNames bounds longNames; past it the cache starts afresh.
const maxLongNames = 1024

type commName struct{ comm, name string }

// longName completes a comm the kernel cut at 15 bytes from argv[0] or the executable's name.
func longName(dir, comm string) string {
	var candidates []string
	if cmdline, err := os.ReadFile(dir + "cmdline"); err == nil {
		argv0, _, _ := bytes.Cut(cmdline, []byte{0})
		candidates = append(candidates, filepath.Base(string(argv0)))
	}
	if exe, err := os.Readlink(dir + "exe"); err == nil {
		candidates = append(candidates, filepath.Base(exe))
	}
	for _, c := range candidates {
		if len(c) > len(comm) && strings.HasPrefix(c, comm) {
			return c
		}
	}
	return comm
}
