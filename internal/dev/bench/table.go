package bench

import (
	"fmt"
	"strings"
)

// row is one line of the results table: mcec's median against the alternative's (or against the
// target when there is no alternative), and their ratio.
type row struct {
	What     string // what mcec did
	Mcec     string // mcec's median, formatted
	Against  string // the alternative, or "target"
	Ref      string // the alternative's median (or the target value), formatted
	Ratio    float64
	Target   string // the ratio (or value) the issue requires; "" when none
	Met      *bool  // nil when there is no target
	Comments string
}

// ratioText says how the ratio reads: "6.2×" (mcec is that many times better).
func (r row) ratioText() string {
	if r.Ratio == 0 {
		return "—"
	}
	if r.Ratio >= 10 {
		return fmt.Sprintf("%.0f×", r.Ratio)
	}
	return fmt.Sprintf("%.2f×", r.Ratio)
}

func (r row) metText() string {
	switch {
	case r.Met == nil:
		return ""
	case *r.Met:
		return "yes"
	default:
		return "**no**"
	}
}

// markdown renders rows as one Markdown table.
func markdown(rows []row) string {
	var b strings.Builder
	b.WriteString("| measurement | mcec (median) | against | its median | ratio | target | met | notes |\n")
	b.WriteString("|---|---:|---|---:|---:|---|---|---|\n")
	// A pipe inside a cell (a shell pipeline) would end the cell: GFM wants it escaped, also in
	// code spans.
	cell := strings.NewReplacer("|", `\|`).Replace
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", cell(r.What), cell(r.Mcec), cell(r.Against),
			cell(r.Ref), r.ratioText(), r.Target, r.metText(), cell(r.Comments))
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }
