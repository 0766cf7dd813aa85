package gfxinfo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/source"
)

// FuzzUntitledBlocks (issue 25): the state between dumps for the shapes real captures take when
// their blocks lose their frame: a window's title lines (its view-root and "Window:" lines)
// gone, the PROFILEDATA markers gone, the view hierarchy gone, a row torn, a dump cut short
// (the last one: a block left open at the end of the input). The first byte chooses how the
// dumps are read (live tracker or capture; a clean first dump or not), then one byte per dump
// says which of those it suffers, and the byte after where it is cut or torn. Whatever they say,
// no real frame is counted twice, no window is invented (a capture's untitled rows are the
// process's window) and no more frames come out than rows went in.
func FuzzUntitledBlocks(f *testing.F) {
	f.Add([]byte{0x40, 0x01, 0})                   // a capture's only dump without titles
	f.Add([]byte{0x40, 0x41, 0x30})                // … and cut
	f.Add([]byte{0x40, 0x89, 0x12})                // … without opening markers, a row torn
	f.Add([]byte{0xc0, 0x00, 0, 0x00, 0, 0x27, 9}) // the last of three untitled, markers gone
	f.Add([]byte{0x00, 0x00, 0, 0x03, 0, 0x00, 0}) // live: the second untitled
	dumps := pollCapture(3, 24, 0)
	titles := map[string]bool{pkg + "/.Main": true, pkg + "/.Popup": true}
	real := map[int64]bool{}
	for _, d := range dumps {
		for _, p := range mustParse(f, d).Processes {
			for _, w := range p.Windows {
				for _, fr := range w.Frames {
					real[fr.VsyncID] = true
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		capture, cleanFirst := ops[0]&0x40 != 0, ops[0]&0x80 == 0
		ops = ops[1:]
		var in [][]byte
		damaged := 0
		if cleanFirst {
			in = append(in, dumps[0])
		}
		for i, d := range dumps {
			var op, at byte
			if 2*i < len(ops) {
				op = ops[2*i]
			}
			if 2*i+1 < len(ops) {
				at = ops[2*i+1]
			}
			var n int
			d, n = unframe(d, op, at)
			damaged += n
			in = append(in, d)
		}
		var evs []source.Event
		if capture {
			evs, _ = readAllEvents(t, bytes.NewReader(bytes.Join(in, nil)))
		} else {
			tr := newTracker(pkg, "")
			for _, d := range in {
				evs = tr.apply(evs, d)
			}
		}
		checkDamaged(t, evs, titles, real, damaged)
	})
}

// unframe takes from a dump what op says: bit 0 the title lines of .Main, bit 1 those of
// .Popup, bit 2 the view hierarchy, bit 3 the opening markers, bit 4 the closing ones (a
// marker line is opening or closing by the line after it), bit 5 tears row at, bit 6 cuts the
// dump after line at (in its second half). It returns the dump and the damaged-line count.
func unframe(d []byte, op, at byte) ([]byte, int) {
	lines := bytes.SplitAfter(d, []byte("\n"))
	var out [][]byte
	damaged, rows, inHier := 0, 0, false
	for i, l := range lines {
		s := string(l)
		drop := false
		switch {
		case strings.Contains(s, "(visibility=") || strings.HasPrefix(s, "Window: "):
			drop = op&1 != 0 && strings.Contains(s, "/.Main") || op&2 != 0 && strings.Contains(s, "/.Popup")
		case strings.HasPrefix(s, "View hierarchy:"):
			inHier = true
			drop = op&4 != 0
		case inHier && strings.Contains(s, "ViewRootImpl@"):
			drop = op&4 != 0
		case strings.HasPrefix(s, "---PROFILEDATA---"):
			opening := i+1 < len(lines) && bytes.HasPrefix(lines[i+1], []byte("Flags,"))
			drop = opening && op&8 != 0 || !opening && op&16 != 0
		case len(s) > 0 && s[0] >= '0' && s[0] <= '9' && strings.Count(s, ",") > 13:
			if op&32 != 0 && rows == int(at)%20 {
				l = l[:len(l)/2]
				damaged += 2
			}
			rows++
		}
		if drop {
			damaged++
			continue
		}
		out = append(out, l)
		if op&64 != 0 && len(out) == len(lines)/2+int(at)%(len(lines)/2) {
			damaged += 2
			break
		}
	}
	return bytes.Join(out, nil), damaged
}

// choi890Shapes are the real 120 Hz scroll's one dump damaged as real captures are: each shape
// and the frames it still holds.
func TestDamagedRealBlocks(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(realdata.Dir(t, "gfxinfo"), "choi890-soundviz-android13plus-120hz-framestats-scroll.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	// the block: its opening marker, header, 120 rows and closing marker
	open := -1
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte("---PROFILEDATA---")) {
			open = i
			break
		}
	}
	if open < 0 || !bytes.HasPrefix(lines[open+1], []byte("Flags,")) || !bytes.HasPrefix(lines[open+122], []byte("---PROFILEDATA---")) {
		t.Fatal("the capture's block is not where it was")
	}
	const main = "com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity"
	const proc = "com.soundvisualization.accessibility"
	untitled := func(ls [][]byte) [][]byte { // without its view-root and Window: lines
		var out [][]byte
		for _, l := range ls {
			if !bytes.Contains(l, []byte("(visibility=")) && !bytes.HasPrefix(l, []byte("Window: ")) {
				out = append(out, l)
			}
		}
		return out
	}
	without := func(ls [][]byte, drop ...int) [][]byte {
		var out [][]byte
		for i, l := range ls {
			if !containsInt(drop, i) {
				out = append(out, l)
			}
		}
		return out
	}
	torn := func(ls [][]byte, i int) [][]byte {
		out := append([][]byte(nil), ls...)
		out[i] = append(append([]byte(nil), ls[i][:len(ls[i])/2]...), '\n')
		return out
	}
	row := func(i int) int { return open + 2 + i } // line of row i (0-based)
	for _, c := range []struct {
		name   string
		lines  [][]byte
		window string
		frames int
		warn   string // a warning the read must give ("" none required)
		noWarn string // one it must not give
	}{
		{"whole", lines, main, 120, "", "title"},
		{"cut in row 63", append(lines[:row(62):row(62)], lines[row(62)][:40]), main, 62, "not closed (input cut)", ""},
		{"row 22 torn", torn(lines, row(22)), main, 119, "torn", ""},
		{"unclosed", lines[:open+122], main, 120, "not closed (input cut)", ""},
		{"without markers", without(lines, open, open+122), main, 120, "without ---PROFILEDATA--- markers", "header line"},
		{"without a title", untitled(lines), proc, 120, "no title", "next dump"},
		{"without a title, row 22 torn", untitled(torn(lines, row(22))), proc, 119, "no title", "next dump"},
		{"without a title, unclosed", untitled(lines[:open+122]), proc, 120, "read as the process's window", "next dump"},
		{"without a title, cut", untitled(append(lines[:row(90):row(90)], lines[row(90)][:30])), proc, 90, "read as the process's window", "next dump"},
		{"without a title or markers", untitled(without(lines, open, open+122)), proc, 120, "no title", "next dump"},
		{"bare header and rows", lines[open+1 : open+122], "", 120, "without ---PROFILEDATA--- markers", "title"},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, _ := readAllEvents(t, bytes.NewReader(bytes.Join(c.lines, nil)))
			n := 0
			var warns []string
			for _, e := range evs {
				switch e := e.(type) {
				case *source.Frame:
					n++
					if e.Window != c.window {
						t.Fatalf("a frame of window %q, want %q", e.Window, c.window)
					}
				case *source.Notice:
					warns = append(warns, e.Text)
				}
			}
			all := strings.Join(warns, "\n")
			if n != c.frames {
				t.Errorf("%d frames, want %d (warnings: %s)", n, c.frames, all)
			}
			if c.warn != "" && !strings.Contains(all, c.warn) {
				t.Errorf("no warning saying %q in:\n%s", c.warn, all)
			}
			if c.noWarn != "" && strings.Contains(all, c.noWarn) {
				t.Errorf("a warning saying %q in:\n%s", c.noWarn, all)
			}
		})
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
