package logcat

import "bytes"

// ProbeArgs is the logcat command line that reads what an app has logged recently (the last
// 2000 of its lines, then logcat exits) to see whether it prints Looper lines.
func ProbeArgs(pid string) []string {
	return []string{"-d", "-v", "threadtime", "-t", "2000", "--pid=" + pid}
}

// LogsLooper reports whether logcat text (ProbeArgs' output) holds Looper printer lines
// (">>>>> Dispatching to") or Looper's slow-message lines (Slow dispatch/delivery, Android 8's
// "Dispatch took", the vendor "Slow Looper main:" family): an app that prints them is better
// measured with gfxinfo+logcat, which names the main-thread messages behind its janky frames.
func LogsLooper(text []byte) bool {
	d := NewDecoder()
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		d.Line(line)
	}
	s := d.Stats()
	return s.Dispatching+s.Finished+s.SlowDispatch+s.SlowDelivery+s.SlowVendor > 0
}
