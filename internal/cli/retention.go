package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcec/mcec/internal/evidence"
)

// retentionFlags are the sessions directory's limits as typed.
type retentionFlags struct {
	maxAge, maxBytes string
}

func (r *retentionFlags) register(pf *pflag.FlagSet) {
	pf.StringVar(&r.maxAge, "sessions-max-age", envOr("MCEC_SESSIONS_MAX_AGE", "7d"),
		"remove session directories untouched for longer than this, e.g. 7d, 36h; 0 keeps them (env MCEC_SESSIONS_MAX_AGE)")
	pf.StringVar(&r.maxBytes, "sessions-max-bytes", envOr("MCEC_SESSIONS_MAX_BYTES", "1GiB"),
		"remove the oldest session directories while together they are larger, e.g. 1GiB, 500MB; 0 means no limit (env MCEC_SESSIONS_MAX_BYTES)")
}

// value parses the flags; 0 switches a limit off.
func (r *retentionFlags) value() (evidence.Retention, error) {
	age, err := parseAge(r.maxAge)
	if err != nil {
		return evidence.Retention{}, usageError{fmt.Errorf("--sessions-max-age %q: %v", r.maxAge, err)}
	}
	size, err := parseBytes(r.maxBytes)
	if err != nil {
		return evidence.Retention{}, usageError{fmt.Errorf("--sessions-max-bytes %q: %v", r.maxBytes, err)}
	}
	ret := evidence.Retention{MaxAge: age, MaxBytes: size}
	if age == 0 {
		ret.MaxAge = -1
	}
	if size == 0 {
		ret.MaxBytes = -1
	}
	return ret, nil
}

// parseAge reads a Go duration, or a whole number of days ("7d").
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("want days as a whole number, e.g. 7d")
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 7d, 36h or 90m")
	}
	return d, nil
}

// parseBytes reads a size: bytes, or a number with a unit (KB, MB, GB: powers of 1000; KiB, MiB,
// GiB: powers of 1024).
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("want a size such as 1GiB, 500MB or 1048576")
	}
	return int64(f * float64(mult)), nil
}
