package html

import (
	"bytes"
	"html"
	"html/template"
	"math"
	"strconv"
)

// Chart geometry in SVG user units. Every chart is drawn into a viewBox this wide and scales
// with the page (CSS width 100%), so text stays proportionate on screen and in print.
const (
	chartW    = 1000.0
	padLeft   = 56.0
	padRight  = 16.0
	padTop    = 14.0
	padBottom = 30.0
)

// svg writes one inline SVG chart. Colours never appear here: elements carry classes, and the
// embedded stylesheet gives each class its theme colour.
type svg struct {
	b bytes.Buffer
	f []byte // number formatting scratch
}

// start opens the <svg> element with its classes ("chart NAME" for a figure); label is its
// accessible name.
func (s *svg) start(w, h float64, class, label string) {
	s.b.WriteString(`<svg viewBox="0 0 `)
	s.num(w)
	s.b.WriteByte(' ')
	s.num(h)
	s.b.WriteString(`" class="`)
	s.b.WriteString(class)
	s.b.WriteString(`" role="img" aria-label="`)
	s.b.WriteString(html.EscapeString(label))
	s.b.WriteString(`">`)
}

// end closes the <svg> and returns the chart as trusted HTML (all text in it was escaped).
func (s *svg) end() template.HTML {
	s.b.WriteString(`</svg>`)
	return template.HTML(s.b.String())
}

// num writes v with at most one decimal (enough for a 1000-unit viewBox, and small files).
func (s *svg) num(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	s.f = strconv.AppendFloat(s.f[:0], math.Round(v*10)/10, 'f', -1, 64)
	s.b.Write(s.f)
}

// attr writes ` name="v"` with a number.
func (s *svg) attr(name string, v float64) {
	s.b.WriteByte(' ')
	s.b.WriteString(name)
	s.b.WriteString(`="`)
	s.num(v)
	s.b.WriteByte('"')
}

// open writes `<tag class="class"` (no closing bracket).
func (s *svg) open(tag, class string) {
	s.b.WriteByte('<')
	s.b.WriteString(tag)
	if class != "" {
		s.b.WriteString(` class="`)
		s.b.WriteString(class)
		s.b.WriteByte('"')
	}
}

// close ends an element opened with open: with a <title> tooltip when title is not empty.
func (s *svg) close(tag, title string) {
	if title == "" {
		s.b.WriteString(`/>`)
		return
	}
	s.b.WriteString(`><title>`)
	s.b.WriteString(html.EscapeString(title))
	s.b.WriteString(`</title></`)
	s.b.WriteString(tag)
	s.b.WriteByte('>')
}

// rect draws a rectangle (negative sizes are normalised; tiny ones get a visible minimum).
func (s *svg) rect(x, y, w, h float64, class, title string) {
	if w < 0 {
		x, w = x+w, -w
	}
	if h < 0 {
		y, h = y+h, -h
	}
	s.open("rect", class)
	s.attr("x", x)
	s.attr("y", y)
	s.attr("width", math.Max(w, 0.6))
	s.attr("height", math.Max(h, 0.6))
	s.close("rect", title)
}

// circle draws a point.
func (s *svg) circle(x, y, r float64, class, title string) {
	s.open("circle", class)
	s.attr("cx", x)
	s.attr("cy", y)
	s.attr("r", r)
	s.close("circle", title)
}

// line draws a straight line.
func (s *svg) line(x1, y1, x2, y2 float64, class, title string) {
	s.open("line", class)
	s.attr("x1", x1)
	s.attr("y1", y1)
	s.attr("x2", x2)
	s.attr("y2", y2)
	s.close("line", title)
}

// polyline draws a line through the points (x0, y0, x1, y1, …); it has no tooltip: the points
// drawn on it carry them.
func (s *svg) polyline(xy []float64, class string) {
	s.open("polyline", class)
	s.b.WriteString(` points="`)
	for i := 0; i+1 < len(xy); i += 2 {
		if i > 0 {
			s.b.WriteByte(' ')
		}
		s.num(xy[i])
		s.b.WriteByte(',')
		s.num(xy[i+1])
	}
	s.b.WriteByte('"')
	s.close("polyline", "")
}

// triangle draws a downward marker whose tip is at (x, y).
func (s *svg) triangle(x, y, size float64, class, title string) {
	s.open("path", class)
	s.b.WriteString(` d="M`)
	s.num(x)
	s.b.WriteByte(' ')
	s.num(y)
	s.b.WriteString(`l`)
	s.num(-size / 2)
	s.b.WriteByte(' ')
	s.num(-size)
	s.b.WriteString(`h`)
	s.num(size)
	s.b.WriteString(`z"`)
	s.close("path", title)
}

// text writes a label; anchor is start, middle or end.
func (s *svg) text(x, y float64, anchor, class, t string) {
	s.open("text", class)
	s.attr("x", x)
	s.attr("y", y)
	if anchor != "" && anchor != "start" {
		s.b.WriteString(` text-anchor="`)
		s.b.WriteString(anchor)
		s.b.WriteByte('"')
	}
	s.b.WriteByte('>')
	s.b.WriteString(html.EscapeString(t))
	s.b.WriteString(`</text>`)
}

// group opens a <g> with a class; endGroup closes it.
func (s *svg) group(class string) {
	s.open("g", class)
	s.b.WriteByte('>')
}

func (s *svg) endGroup() { s.b.WriteString(`</g>`) }

// logScale maps [lo, hi] (both > 0) onto [a, b] logarithmically; values outside are clamped.
type logScale struct{ lo, hi, a, b float64 }

func (l logScale) at(v float64) float64 {
	if !(v > l.lo) {
		v = l.lo
	}
	if v > l.hi {
		v = l.hi
	}
	return l.a + (l.b-l.a)*math.Log(v/l.lo)/math.Log(l.hi/l.lo)
}

// linScale maps [lo, hi] onto [a, b] linearly; values outside are clamped.
type linScale struct{ lo, hi, a, b float64 }

func (l linScale) at(v float64) float64 {
	if l.hi <= l.lo {
		return l.a
	}
	v = math.Max(l.lo, math.Min(l.hi, v))
	return l.a + (l.b-l.a)*(v-l.lo)/(l.hi-l.lo)
}

// niceTicks returns 1-2-5 ticks from lo to hi for a log axis (lo > 0).
func niceTicks(lo, hi float64) []float64 {
	var out []float64
	for d := math.Pow(10, math.Floor(math.Log10(lo))); d <= hi*1.0001; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if v := d * m; v >= lo*0.9999 && v <= hi*1.0001 {
				out = append(out, v)
			}
		}
	}
	return out
}

// linTicks returns about n round ticks from 0 to hi for a linear axis.
func linTicks(hi float64, n int) []float64 {
	if hi <= 0 || n <= 0 {
		return []float64{0}
	}
	raw := hi / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if mag*m >= raw {
			step = mag * m
			break
		}
	}
	var out []float64
	for v := 0.0; v <= hi*1.0001; v += step {
		out = append(out, v)
	}
	return out
}

// timeTicks returns round tick positions in seconds across [lo, hi] (about n of them).
func timeTicks(lo, hi float64, n int) []float64 {
	span := hi - lo
	if span <= 0 || n <= 0 {
		return nil
	}
	steps := []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400}
	step := steps[len(steps)-1]
	for _, st := range steps {
		if span/st <= float64(n) {
			step = st
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		out = append(out, v)
	}
	return out
}
