package sysload

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFactorOf(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "loadavg")
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		loadavg string
		cpus    int
		want    float64
	}{
		{"0.50 0.40 0.30 1/200 1234\n", 2, 1}, // idle: no stretch
		{"6.00 5.00 4.00 9/300 1234\n", 2, 3}, // three runnable per processor
		{"40.00 30.00 20.00 9/300 1\n", 2, 4}, // capped
		{"6.00 5.00 4.00 9/300 1234\n", 8, 1}, // many processors
		{"garbage", 2, 1},                     // unreadable
		{"", 2, 1},
	} {
		if got := factorOf(write(tc.loadavg), tc.cpus); got != tc.want {
			t.Errorf("%q on %d cpus: %v, want %v", tc.loadavg, tc.cpus, got, tc.want)
		}
	}
	if got := factorOf(filepath.Join(dir, "none"), 2); got != 1 {
		t.Errorf("missing file: %v", got)
	}
}

func TestScale(t *testing.T) {
	saved := loadavgPath
	defer func() { loadavgPath = saved; read = time.Time{} }()
	loadavgPath = filepath.Join(t.TempDir(), "loadavg")
	if err := os.WriteFile(loadavgPath, []byte("1000.0 1 1 1/1 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	read = time.Time{}
	if got := Scale(2 * time.Second); got != 2*time.Second*MaxFactor {
		t.Errorf("Scale on a crowded machine: %v, want %v", got, 2*time.Second*MaxFactor)
	}
}
