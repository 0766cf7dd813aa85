package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/fpstop/fpstop/source/gfxinfo"
	"github.com/fpstop/fpstop/source/perfetto"
	"github.com/fpstop/fpstop/source/surfaceflinger"
)

// writeDeviceCost states what each --source asks of the phone (DESIGN §7 "Observer effect"),
// from the pollers' own pacing rules; BENCHMARKS.md "Device cost" has the figures measured at
// the fake phone (scripts/measure-device-cost.sh).
func writeDeviceCost(w io.Writer) {
	secs := func(d time.Duration) string { return fmt.Sprintf("%.2g s", d.Seconds()) }
	per := func(d time.Duration) string { return fmt.Sprintf("%.2g/s", 1/d.Seconds()) }
	g120, g60 := gfxinfo.PacedInterval(120), gfxinfo.PacedInterval(60)
	sf120, sf60 := surfaceflinger.AdaptiveInterval(8_333_333), surfaceflinger.AdaptiveInterval(16_666_667)
	idle := gfxinfo.IdleProbeEvery
	fmt.Fprintf(w, "device cost:   what each --source asks of the phone (measured: BENCHMARKS.md \"Device cost\")\n")
	fmt.Fprintf(w, "  gfxinfo         `dumpsys gfxinfo PKG framestats` every %s at 120 Hz (%s), %s at 60 Hz (%s) while the app draws,\n"+
		"                  about 40 kB per window (its 120 rows); idle app: `dumpsys gfxinfo PKG` (counters only, a few kB)\n"+
		"                  at that pace for 4 s, then every %s (%s), back to full dumps when the counter moves\n",
		secs(g120), per(g120), secs(g60), per(g60), secs(idle), per(idle))
	fmt.Fprintf(w, "  gfxinfo+logcat  the same dumps, paced by the app's own drawing rate (the logcat stream's vsync lines wake\n"+
		"                  the poller before the ring fills), plus one `logcat` stream of the app's pid (its bytes are\n"+
		"                  what the app logs); the pid comes from the dumps (no pidof)\n")
	fmt.Fprintf(w, "  logcat          one `logcat` stream; `pidof PKG` every 2 s to follow restarts\n")
	fmt.Fprintf(w, "  surfaceflinger  `dumpsys SurfaceFlinger --latency LAYER` every %s at 120 Hz, %s at 60 Hz (about 6 kB each);\n"+
		"                  `--list` every 10 s while the layer presents, every 2 s while looking for it\n", secs(sf120), secs(sf60))
	fmt.Fprintf(w, "  perfetto        (Android 12+) a tracing session of at most %s (`perfetto --background`, its file written every\n"+
		"                  %d ms), the next one started %s before its end; the growing file read every %s (`stat` + `tail -c`:\n"+
		"                  its new bytes only); `kill -TERM` and `rm` of its own sessions and files on exit, on a switch, and once\n"+
		"                  a phone that stopped answering is back\n",
		secs(time.Duration(perfetto.DefaultSessionMs)*time.Millisecond), perfetto.DefaultWritePeriodMs,
		secs(time.Duration(perfetto.DefaultOverlapMs)*time.Millisecond), secs(perfetto.DefaultPoll))
	fmt.Fprintf(w, "  every source    model, release, SDK: `getprop` once per device connection; refresh rate: `dumpsys display` once\n")
}
