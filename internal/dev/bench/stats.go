package bench

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// sample is one measurement's repetitions, in the order they ran.
type sample []time.Duration

// median is the middle repetition (the mean of the two middle ones for an even count).
func (s sample) median() time.Duration { return median(s) }

// median is the middle value of v (the mean of the two middle ones for an even count), 0 for none.
func median[T ~int64 | ~float64](v []T) T {
	if len(v) == 0 {
		return 0
	}
	w := slices.Sorted(slices.Values(v))
	n := len(w)
	if n%2 == 1 {
		return w[n/2]
	}
	return (w[n/2-1] + w[n/2]) / 2
}

// percentile is the nearest-rank p-th percentile (0 < p ≤ 100).
func (s sample) percentile(p float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	v := slices.Sorted(slices.Values(s))
	rank := int(math.Ceil(p/100*float64(len(v)))) - 1
	return v[min(max(rank, 0), len(v)-1)]
}

// ms formats a duration in milliseconds with a precision that suits its size.
func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f < 10:
		return fmt.Sprintf("%.2f ms", f)
	case f < 100:
		return fmt.Sprintf("%.1f ms", f)
	default:
		return fmt.Sprintf("%.0f ms", f)
	}
}

// measure runs f warm times unrecorded, then reps times, and returns what f measured each time.
// f returns its own duration so that setup inside a repetition (closing a dialog, say) is not
// counted.
func measure(warm, reps int, f func() (time.Duration, error)) (sample, error) {
	for range warm {
		if _, err := f(); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	s := make(sample, 0, reps)
	for i := range reps {
		d, err := f()
		if err != nil {
			return nil, fmt.Errorf("repetition %d: %w", i+1, err)
		}
		s = append(s, d)
	}
	return s, nil
}

// timed wraps a call that is all measurement.
func timed(f func() error) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		t := time.Now()
		err := f()
		return time.Since(t), err
	}
}
