package platform

import "math"

// Densify returns path with points inserted so that no two consecutive points are more than
// step pixels apart (in both axes), keeping every original point: a drag moves through them so
// that applications see motion, whatever the backend.
func Densify(path []Point, step int) []Point {
	if len(path) == 0 {
		return nil
	}
	out := []Point{path[0]}
	for i := 1; i < len(path); i++ {
		a, b := path[i-1], path[i]
		dx, dy := b.X-a.X, b.Y-a.Y
		n := int(math.Ceil(float64(max(abs(dx), abs(dy))) / float64(step)))
		for k := 1; k <= n; k++ {
			out = append(out, Point{
				X: a.X + int(math.Round(float64(dx*k)/float64(n))),
				Y: a.Y + int(math.Round(float64(dy*k)/float64(n))),
			})
		}
	}
	return out
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
