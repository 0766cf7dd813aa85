package html

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fpstop/fpstop/metrics"
)

// ms2 prints a number with at most two decimals and no trailing zeros.
func ms2(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	s := strconv.FormatFloat(math.Round(v*100)/100, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// r2 prints an optional report number; "—" for null.
func r2(v *metrics.R2) string {
	if v == nil {
		return "—"
	}
	return ms2(float64(*v))
}

// secs prints a time in seconds from the session start for tooltips ("12.35 s", "1:02:03.5").
func secs(t float64) string {
	if math.Abs(t) < 60 {
		return ms2(t) + " s"
	}
	return clockPrec(t, true)
}

// clock prints an axis time: "45 s" under a minute, then m:ss or h:mm:ss.
func clock(t float64) string {
	if math.Abs(t) < 1e-9 {
		t = 0 // a tick computed as −1e-16 is 0 s, never "-0 s"
	}
	if math.Abs(t) < 60 {
		return ms2(t) + " s"
	}
	return clockPrec(t, false)
}

func clockPrec(t float64, tenths bool) string {
	sign := ""
	if t < 0 {
		sign, t = "−", -t
	}
	whole := int64(t)
	h, m, sec := whole/3600, whole/60%60, whole%60
	frac := ""
	if tenths {
		frac = fmt.Sprintf(".%d", int64((t-float64(whole))*10))
	}
	if h > 0 {
		return fmt.Sprintf("%s%d:%02d:%02d%s", sign, h, m, sec, frac)
	}
	return fmt.Sprintf("%s%d:%02d%s", sign, m, sec, frac)
}

// msLabel prints a frame-time axis tick: ms up to a second, then seconds.
func msLabel(v float64) string {
	if v >= 1000 {
		return ms2(v/1000) + " s"
	}
	return ms2(v)
}

// pct prints part/whole as a percentage with two decimals at most.
func pct(part, whole int64) string {
	if whole <= 0 {
		return "—"
	}
	return ms2(float64(part)*100/float64(whole)) + " %"
}

// duration prints a session length: "42.5 s", "12 min 3 s", "1 h 0 min".
func duration(s float64) string {
	switch {
	case s < 60:
		return ms2(s) + " s"
	case s < 3600:
		return fmt.Sprintf("%d min %d s", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%d h %d min", int(s)/3600, int(s)/60%60)
}
