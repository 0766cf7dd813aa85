package ui

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
