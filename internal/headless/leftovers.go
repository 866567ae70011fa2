package headless

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcec/mcec/internal/paths"
	"github.com/mcec/mcec/internal/procgroup"
)

// A desktop must not outlive mcec, even when mcec is killed outright (SIGKILL, the OOM killer)
// and never runs Stop. Three layers see to that:
//   - every process Start starts directly gets a parent-death signal (spawn);
//   - a watchdog (watchdogScript, a /bin/sh of its own, deliberately without one) holds the
//     read end of a pipe only mcec writes to: when mcec dies the pipe ends, and the watchdog
//     ends the desktop's process groups — which hold what the children forked, such as the
//     AT-SPI launcher's own dbus-daemon and the registry it activates — and every process
//     that carries the desktop's mark in its environment (programs started inside it), then
//     removes the runtime directory;
//   - should the watchdog die too, the next Start sweeps runtime directories whose owner
//     (ownerFile) is gone (sweepLeftovers).

// deskPrefix names the runtime directories of desktops.
const deskPrefix = "mcec-desk-"

// ownerFile, in the runtime directory, names the process that owns the desktop: "PID START",
// START being the process's start time in clock ticks after boot (/proc/PID/stat field 22),
// so that a reused pid is not mistaken for the owner.
const ownerFile = "owner"

// legacyAge is how old a runtime directory without an owner file must be before the sweep
// considers it: younger ones may be a desktop between mkdir and writing its owner.
const legacyAge = time.Minute

// writeOwner records this process as the owner of the runtime directory dir.
func writeOwner(dir string) error {
	start, ok := procStart(os.Getpid())
	if !ok {
		return errors.New("cannot read this process's start time")
	}
	return os.WriteFile(filepath.Join(dir, ownerFile), fmt.Appendf(nil, "%d %d\n", os.Getpid(), start), 0o600)
}

// ownerAlive reports whether the owner recorded in dir still runs. known is false when dir
// has no readable owner file.
func ownerAlive(dir string) (alive, known bool) {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return false, false
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return false, false
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil || pid < 1 {
		return false, false
	}
	now, ok := procStart(pid)
	return ok && now == start, true
}

// procStart reads a live (not zombie) process's start time from /proc/PID/stat.
func procStart(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	// Fields after the command: state is field 3, starttime field 22.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	return v, err == nil
}

// deskMark is the environment entry every process started inside the desktop carries.
func deskMark(dir string) []byte { return []byte(paths.RuntimeVar + "=" + dir) }

// hasMark reports whether /proc/PID/environ holds mark as one entry.
func hasMark(pid int, mark []byte) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.Equal(kv, mark) {
			return true
		}
	}
	return false
}

// deskProcs maps the marks of desktops (deskMark) to the live processes that carry them,
// reading every process's environment once.
func deskProcs() map[string][]int {
	ents, _ := os.ReadDir("/proc")
	out := map[string][]int{}
	prefix := []byte(paths.RuntimeVar + "=")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if bytes.HasPrefix(kv, prefix) {
				if _, ok := procStart(pid); ok {
					out[string(kv)] = append(out[string(kv)], pid)
				}
				break
			}
		}
	}
	return out
}

// killMarked sends SIGKILL to every process that carries mark. Each is checked again after
// a pidfd is opened on it, so a pid reused between the look and the signal is never hit.
func killMarked(pids []int, mark []byte) (killed []int) {
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue
		}
		if hasMark(pid, mark) && unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil {
			killed = append(killed, pid)
		}
		unix.Close(fd)
	}
	return killed
}

// sweepRoots are where desktops' runtime directories are made (makeRuntimeDir).
func sweepRoots() []string { return paths.DesktopRoots() }

// sweepLeftovers removes the runtime directories of desktops whose owner is gone (killed
// together with its watchdog), after stopping the processes that still carry their mark.
// Directories of live owners, of other users, and fresh ones without an owner file are left
// alone; an old one without an owner file (made before owners were recorded) only when no
// process carries its mark any more. It returns the directories removed.
func sweepLeftovers(roots []string, log *slog.Logger) []string {
	var removed []string
	var procs map[string][]int // read once, when a directory needs it
	uid := os.Getuid()
	for _, root := range roots {
		ents, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() || !strings.HasPrefix(e.Name(), deskPrefix) {
				continue
			}
			dir := filepath.Join(root, e.Name())
			var st syscall.Stat_t
			if syscall.Lstat(dir, &st) != nil || int(st.Uid) != uid {
				continue
			}
			alive, known := ownerAlive(dir)
			if alive || (!known && time.Since(time.Unix(st.Mtim.Unix())) < legacyAge) {
				continue
			}
			if procs == nil {
				procs = deskProcs()
			}
			mark := deskMark(dir)
			marked := procs[string(mark)]
			switch {
			case !known:
				if len(marked) > 0 {
					continue
				}
			default:
				if pids := killMarked(marked, mark); len(pids) > 0 {
					log.Info("stopped the processes of a desktop whose owner is gone", "dir", dir, "pids", pids)
				}
			}
			if err := os.RemoveAll(dir); err != nil {
				log.Warn("removing a desktop whose owner is gone", "dir", dir, "err", err)
				continue
			}
			log.Info("removed a desktop whose owner is gone", "dir", dir)
			removed = append(removed, dir)
		}
	}
	return removed
}

// watchdogScript ends a desktop when its owner dies. It reads process group ids, one a line,
// until "quit" (Stop took over) or the end of input (the owner died). $1 is the runtime
// directory. SIGTERM first lets Xvfb and dbus-daemon remove their sockets; what is left after
// two seconds gets SIGKILL. marked() is one grep over every process's environment: a grep per
// process took 20 s a scan on a loaded machine.
const watchdogScript = `dir=$1; groups=
while IFS= read -r line; do
	case $line in
	quit) exit 0 ;;
	''|*[!0-9]*) ;;
	*) groups="$groups $line" ;;
	esac
done
marked() {
	grep -lzxF "XDG_RUNTIME_DIR=$dir" /proc/[0-9]*/environ 2>/dev/null | while IFS= read -r f; do
		p=${f#/proc/}; echo "${p%/environ}"
	done
}
for g in $groups; do kill -TERM -- "-$g" 2>/dev/null; done
for p in $(marked); do kill -TERM "$p" 2>/dev/null; done
i=0
while [ $i -lt 20 ]; do
	left=
	for g in $groups; do kill -0 -- "-$g" 2>/dev/null && left=1; done
	[ -z "$left" ] && [ -z "$(marked)" ] && break
	sleep 0.1; i=$((i+1))
done
for g in $groups; do kill -KILL -- "-$g" 2>/dev/null; done
for p in $(marked); do kill -KILL "$p" 2>/dev/null; done
rm -rf -- "$dir"
`

// watchdog is the desktop's watchdog process and the pipe that keeps it waiting.
type watchdog struct {
	w    *os.File
	proc *procgroup.Proc
}

// startWatchdog starts the watchdog of the desktop in dir. It runs in a process group of its
// own (a Ctrl-C to mcec's group must not take it first) with a bare environment (it must not
// carry the desktop's mark, or it would kill itself) and no parent-death signal: outliving mcec
// is its job.
func startWatchdog(dir string) (*watchdog, error) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(sh, "-c", watchdogScript, "mcec-desktop-watchdog", dir)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	cmd.Stdin = pr
	cmd.Dir = "/"
	p, err := procgroup.Start(cmd, 0)
	if err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	pr.Close()
	return &watchdog{w: pw, proc: p}, nil
}

// watch adds a process group for the watchdog to end.
func (w *watchdog) watch(pgid int) {
	if w != nil {
		_, _ = fmt.Fprintf(w.w, "%d\n", pgid)
	}
}

// quit tells the watchdog that Stop takes over, and reaps it; a watchdog that does not leave
// within the grace is killed by its pid (ours, not reaped yet, so it cannot name another).
func (w *watchdog) quit() {
	if w == nil {
		return
	}
	_, _ = w.w.WriteString("quit\n")
	w.w.Close()
	select {
	case <-w.proc.Done():
		return
	case <-time.After(termGrace):
	}
	_ = w.proc.Cmd.Process.Kill()
	<-w.proc.Done()
}
