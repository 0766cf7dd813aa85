package compare

import (
	"cmp"
	"slices"
)

// Section is one slow atrace section (Perfetto traces: the work behind janky frames) compared
// as slow messages are: its p95 duration on each side.
type Section struct {
	Name   string `json:"name"`
	Thread string `json:"thread"`
	// CountBase and CountNew are occurrences over each side's recordings.
	CountBase int64  `json:"count_base"`
	CountNew  int64  `json:"count_new"`
	Status    string `json:"status"` // new, gone, slower, faster, unchanged
	// P95 compares the p95 duration in ms (Name "p95_ms").
	P95 Metric `json:"p95"`
}

// sections compares every slow section (by folded name and thread) either side's reports
// list, slowest first, as messages compares slow messages; informational, never the verdict.
func (c *comparer) sections(base, new []*Run) []Section {
	maxMs := map[SectionKey]float64{}
	for _, runs := range [][]*Run{base, new} {
		for _, r := range runs {
			for _, s := range r.Report.SlowSections {
				k := SectionKey{Name: s.Name, Thread: s.Thread}
				maxMs[k] = max(maxMs[k], float64(s.MaxMs))
			}
		}
	}
	keys := make([]SectionKey, 0, len(maxMs))
	for k := range maxMs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b SectionKey) int {
		return cmp.Or(cmp.Compare(maxMs[b], maxMs[a]), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Thread, b.Thread))
	})
	out := make([]Section, 0, len(keys))
	for _, k := range keys {
		bs, bc := gather(base, k, sectionsOf)
		ns, nc := gather(new, k, sectionsOf)
		s := Section{Name: k.Name, Thread: k.Thread, CountBase: bc, CountNew: nc}
		s.P95, s.Status = c.occurrences(bs, bc, ns, nc, "section:"+k.Name+"|"+k.Thread)
		out = append(out, s)
	}
	return out
}

func sectionsOf(r *Run) (map[SectionKey][]float64, map[SectionKey]int64) {
	return r.Sections, r.SectionCounts
}

// sectionLabel names a section with its thread.
func sectionLabel(s Section) string {
	if s.Thread == "" {
		return s.Name
	}
	return s.Name + " (" + s.Thread + ")"
}
