package bench

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSample(t *testing.T) {
	ms := func(v ...int) sample {
		s := make(sample, len(v))
		for i, x := range v {
			s[i] = time.Duration(x) * time.Millisecond
		}
		return s
	}
	for _, tc := range []struct {
		name     string
		s        sample
		med, p99 time.Duration
	}{
		{"empty", nil, 0, 0},
		{"odd", ms(5, 1, 3), 3 * time.Millisecond, 5 * time.Millisecond},
		{"even", ms(4, 1, 3, 2), 2500 * time.Microsecond, 4 * time.Millisecond},
		{"one", ms(7), 7 * time.Millisecond, 7 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.median(); got != tc.med {
				t.Errorf("median = %v, want %v", got, tc.med)
			}
			if got := tc.s.percentile(99); got != tc.p99 {
				t.Errorf("p99 = %v, want %v", got, tc.p99)
			}
		})
	}
}

func TestMeasure(t *testing.T) {
	calls := 0
	s, err := measure(2, 20, func() (time.Duration, error) { calls++; return time.Duration(calls), nil })
	if err != nil || len(s) != 20 || calls != 22 || s[0] != 3 {
		t.Fatalf("measure: %v, %d reps, %d calls, first %v", err, len(s), calls, s[0])
	}
	boom := errors.New("boom")
	if _, err := measure(0, 3, func() (time.Duration, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("measure error = %v, want boom", err)
	}
}

func TestMarkdown(t *testing.T) {
	rows := []row{
		ratioRow("query", "pyatspi", 20*time.Millisecond, 150*time.Millisecond, 5, ""),
		ratioRow("capture", "import", 80*time.Millisecond, 160*time.Millisecond, 4, ""),
		targetRow("wait-for", 10*time.Millisecond, 20*time.Millisecond),
		ratioRow("x", "`xwd | convert`", time.Millisecond, time.Millisecond, 0, ""),
	}
	got := markdown(rows)
	for _, want := range []string{
		"| query | 20.0 ms | pyatspi | 150 ms | 7.50× | ≥ 5× | yes |",
		"| capture | 80.0 ms | import | 160 ms | 2.00× | ≥ 4× | **no** |",
		"| wait-for | 10.0 ms | target | 20.0 ms | 2.00× | < 20.0 ms | yes |",
		"| x | 1.00 ms | `xwd \\| convert` | 1.00 ms | 1.00× |  |  |  |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != len(rows)+2 {
		t.Errorf("table has %d lines, want %d", n, len(rows)+2)
	}
}
