// Package sysload measures how crowded the processors are, to stretch the deadlines that tell
// a hung application from a slow one: beside a second make test on 2 cores (load 11), Firefox,
// LibreOffice and GTK 4 took longer than 2 s to answer single AT-SPI calls that idle they
// answer in milliseconds.
package sysload

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxFactor bounds the stretch: a hung application still costs a bounded deadline.
const MaxFactor = 4

// loadavgPath is the kernel's load averages (a variable for tests).
var loadavgPath = "/proc/loadavg"

var (
	mu     sync.Mutex
	read   time.Time // when factor was last read
	factor = 1.0
)

// Factor is the one-minute load average per processor this process may run on, between 1 and
// MaxFactor; 1 where the load cannot be read. It is read at most once a second.
func Factor() float64 {
	mu.Lock()
	defer mu.Unlock()
	if now := time.Now(); now.Sub(read) >= time.Second {
		read = now
		factor = factorOf(loadavgPath, runtime.NumCPU())
	}
	return factor
}

// Scale stretches d by Factor.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Factor())
}

// factorOf reads the one-minute load average from path and divides it by cpus.
func factorOf(path string, cpus int) float64 {
	b, err := os.ReadFile(path)
	if err != nil || cpus < 1 {
		return 1
	}
	first, _, _ := strings.Cut(string(b), " ")
	load, err := strconv.ParseFloat(first, 64)
	if err != nil {
		return 1
	}
	return min(max(load/float64(cpus), 1), MaxFactor)
}
