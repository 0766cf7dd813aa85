package benchgen

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source/gfxinfo"
)

// awkPairs counts what issue 14's awk pairing script counts: per tid, a Finished after a
// Dispatching is a message.
func awkPairs(t *testing.T, text []byte) int {
	t.Helper()
	open := map[string]bool{}
	n := 0
	for _, line := range strings.Split(string(text), "\n") {
		f := strings.Fields(line)
		switch {
		case strings.Contains(line, " >>>>> Dispatching to "):
			open[f[3]] = true
		case strings.Contains(line, " <<<<< Finished to ") && open[f[3]]:
			open[f[3]] = false
			n++
		}
	}
	return n
}

func TestLogcat(t *testing.T) {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	pairs, err := Logcat(w, 1<<20, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if b.Len() < 1<<20 || b.Len() > 1<<20+1024 {
		t.Errorf("wrote %d bytes, want about 1 MiB", b.Len())
	}
	if got := awkPairs(t, b.Bytes()); got != pairs || pairs < 1000 {
		t.Errorf("Logcat says %d pairs, the awk rule counts %d", pairs, got)
	}
	threadtime := regexp.MustCompile(`^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [VDIWEF] [^:]*: `)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	targets := map[string]bool{}
	looper := 0
	for _, l := range lines {
		if !threadtime.MatchString(l) {
			t.Fatalf("not a threadtime line: %q", l)
		}
		if i := strings.Index(l, ">>>>> Dispatching to "); i >= 0 {
			looper++
			targets[l[i:]] = true
		}
	}
	// Real logs: many Runnables are new objects, so most targets differ from every other.
	if len(targets) < looper/4 {
		t.Errorf("%d distinct Dispatching targets of %d: want per-object hashes", len(targets), looper)
	}
	if share := float64(looper*2) / float64(len(lines)); share < 0.25 || share > 0.38 {
		t.Errorf("Looper lines are %.1f %% of the lines, want about 31.7 %%", 100*share)
	}
	var again bytes.Buffer
	w2 := bufio.NewWriter(&again)
	if _, err := Logcat(w2, 1<<20, 1, false); err != nil {
		t.Fatal(err)
	}
	_ = w2.Flush()
	if !bytes.Equal(b.Bytes(), again.Bytes()) {
		t.Error("the same seed wrote different text")
	}
}

// TestFramestats: fpstop's parser reads every generated row as a complete frame, in both layouts.
func TestFramestats(t *testing.T) {
	for _, layout := range []int{17, 23} {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		n, err := Framestats(w, layout, 1000)
		if err != nil {
			t.Fatal(err)
		}
		_ = w.Flush()
		if n != 1024 {
			t.Fatalf("%d rows, want 8 dumps of 128", n)
		}
		hdr := []byte("Applications Graphics Acceleration Info:") // (each dump's first line)
		var chunks [][]byte
		for _, c := range bytes.Split(b.Bytes(), hdr)[1:] {
			chunks = append(chunks, append(append([]byte(nil), hdr...), c...))
		}
		if len(chunks) != 8 {
			t.Fatalf("layout %d: %d dumps, want 8", layout, len(chunks))
		}
		rows := 0
		for _, c := range chunks {
			d, err := new(gfxinfo.Parser).Parse(c)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Warnings) > 0 {
				t.Errorf("layout %d: warnings %q", layout, d.Warnings)
			}
			for _, p := range d.Processes {
				for _, win := range p.Windows {
					if win.Columns != layout {
						t.Errorf("window %s: %d columns, want %d", win.Title, win.Columns, layout)
					}
					rows += len(win.Frames)
				}
			}
		}
		if rows != n {
			t.Errorf("layout %d: parsed %d complete frames of %d rows", layout, rows, n)
		}
	}
}

// TestLogcatDistinct: -distinct gives every main-thread message its own handler class, and the
// file is otherwise the same kind (pairs as the awk rule counts them).
func TestLogcatDistinct(t *testing.T) {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	pairs, err := Logcat(w, 1<<20, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Flush()
	if got := awkPairs(t, b.Bytes()); got != pairs || pairs < 1000 {
		t.Errorf("Logcat says %d pairs, the awk rule counts %d", pairs, got)
	}
	classes := map[string]bool{}
	mainMsgs := 0
	for _, l := range strings.Split(b.String(), "\n") {
		if i := strings.Index(l, ">>>>> Dispatching to Handler ("); i >= 0 && strings.Contains(l, " 22001 22001 ") {
			mainMsgs++
			rest := l[i+len(">>>>> Dispatching to Handler ("):]
			classes[rest[:strings.IndexByte(rest, ')')]] = true
		}
	}
	if mainMsgs < 1000 || len(classes) != mainMsgs {
		t.Errorf("%d handler classes for %d main-thread messages, want one each", len(classes), mainMsgs)
	}
}
