package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// fitColumns shares avail cells among text columns: each gets what its widest cell needs
// (natural) when all fit; otherwise each starts at its minimum and the rest goes, one cell at a
// time, to the column missing the largest share of its natural width (times its weight: a
// more telling column fills first), so no column keeps blank cells while another is cut. What
// is left when every column fits goes to the last one.
func fitColumns(natural, mins []int, weights []float64, avail int) []int {
	out := make([]int, len(natural))
	total := 0
	for i, n := range natural {
		out[i] = max(n, mins[i])
		total += out[i]
	}
	if total <= avail {
		if len(out) > 0 {
			out[len(out)-1] += avail - total
		}
		return out
	}
	left := avail
	for i := range out {
		out[i] = min(mins[i], natural[i])
		left -= out[i]
	}
	for left > 0 {
		best, bestMiss := -1, 0.0
		for i, n := range natural {
			if out[i] >= n {
				continue
			}
			if miss := weights[i] * float64(n-out[i]) / float64(n); best < 0 || miss > bestMiss {
				best, bestMiss = i, miss
			}
		}
		if best < 0 {
			break
		}
		out[best]++
		left--
	}
	if left > 0 && len(out) > 0 {
		out[len(out)-1] += left
	}
	return out
}

// classWidths shares avail cells among columns of Java class names (short: the widths of their
// simple names with enclosing classes, as shortClass gives them; full: with their packages):
// the short names first, shared by fitColumns when even they do not fit; the room left then
// grows the columns to their full names in order (the first column, the name that tells most,
// first), so a wide terminal shows the packages a narrow one drops. What is left after that goes
// to the last column. Columns of plain text have short == full.
func classWidths(short, full, mins []int, weights []float64, avail int) []int {
	out := make([]int, len(short))
	left := avail
	for i, n := range short {
		out[i] = max(n, mins[i])
		left -= out[i]
	}
	if left < 0 {
		return fitColumns(short, mins, weights, avail)
	}
	for i := range out {
		g := min(left, max(0, full[i]-out[i]))
		out[i] += g
		left -= g
	}
	if len(out) > 0 {
		out[len(out)-1] += left
	}
	return out
}

// classFit fits a Java class name into w cells without cutting its innermost class name
// while there is room for it, k9s-style from the left: the full name; packages dropped from
// the left ("…adapter.FeedRecyclerAdapter$ViewHolderBinder$1"); the simple name with its
// enclosing classes ("FeedRecyclerAdapter$ViewHolderBinder$1"); the enclosing classes cut short
// in front of the innermost name ("FeedRecy…$ViewHolderBinder$1"); as a last resort the
// innermost name cut on the right ("ViewHolder…"). Text that is not a class name is cut on the right. The
// result is at most w cells, not padded.
func classFit(s string, w int) string {
	if width(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	if strings.ContainsAny(s, " {(") {
		return ansi.Truncate(s, w, "…")
	}
	simple := shortClass(s)
	for i := 0; i < len(s)-len(simple); i++ {
		if s[i] == '.' && i+1 < len(s)-len(simple) {
			if c := "…" + s[i+1:]; width(c) <= w {
				return c
			}
		}
	}
	if width(simple) <= w {
		return simple
	}
	inner := innermost(simple)
	if head := simple[:len(simple)-len(inner)]; head != "" && width(inner)+2 <= w {
		return ansi.Truncate(head, w-width(inner)-1, "") + "…" + inner
	}
	// No room for the innermost class: its start (a lambda's or anonymous class's owner),
	// cut on the right, reads better than any tail.
	name := strings.TrimLeft(inner, "$")
	if strings.HasPrefix(name, "Lambda$") || strings.Trim(name, "0123456789$") == "" {
		name = simple
	}
	return ansi.Truncate(name, w, "…")
}

// cleanWidth is the least width at which classFit keeps s's innermost class whole.
func cleanWidth(s string) int {
	simple := shortClass(s)
	if inner := innermost(simple); inner != simple {
		return min(width(simple), width(inner)+2)
	}
	return width(simple)
}

// innermost is the innermost class of a simple name with enclosing classes, with its '$'
// ("$H" of "ActivityThread$H"); an anonymous class keeps its named parent
// ("$ViewHolderBinder$1"), a lambda its marker ("$$Lambda$3"). A name without '$' is itself.
func innermost(simple string) string {
	i := len(simple)
	for {
		j := strings.LastIndexByte(simple[:i], '$')
		if j <= 0 {
			return simple
		}
		seg := simple[j+1 : i]
		i = j
		if strings.Trim(seg, "0123456789") == "" { // an anonymous class's number, or "$$"
			continue
		}
		if seg == "Lambda" && simple[j-1] == '$' {
			i = j - 1
		}
		if i == 0 {
			return simple
		}
		return simple[i:]
	}
}
