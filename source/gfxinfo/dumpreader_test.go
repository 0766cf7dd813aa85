package gfxinfo

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// dumps reads every dump from r with next.
func dumps(t *testing.T, r io.Reader) ([]string, *dumpReader) {
	t.Helper()
	d := newDumpReader(r)
	var out []string
	for {
		c, err := d.next()
		if err == io.EOF {
			return out, d
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(c))
	}
}

// sameDumps fails when got and want differ, or their readers' counts do.
func sameDumps(t *testing.T, how string, got, want []string, dg, dw *dumpReader) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d dumps, read in one piece %d:\n%q\n%q", how, len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: dump %d:\n%q\nread in one piece:\n%q", how, i, got[i], want[i])
		}
	}
	if dg.read != dw.read || dg.longLines != dw.longLines {
		t.Errorf("%s: read %d, %d long lines; in one piece %d, %d", how, dg.read, dg.longLines, dw.read, dw.longLines)
	}
}

// FuzzDumpReader: reading the input byte by byte gives exactly the dumps reading it in one
// piece gives, whatever the input.
func FuzzDumpReader(f *testing.F) {
	var two []byte
	two = synthDump(two, 17, 5000, 42, "com.a", []synthWin{{title: "com.a/A", rows: 3, start: 1e9, period: 16_666_667, total: 3}})
	two = append(two, "  "...)
	two = synthDump(two, 23, 6000, 42, "com.a", []synthWin{{title: "com.a/A", rows: 3, start: 2e9, period: 16_666_667, total: 6}})
	f.Add(two)
	f.Add([]byte("junk\n\nApplications Graphics Acceleration Info:\nUptime: 1\n x Applications Graphics Acceleration Info:\n\t\tApplications Graphics Acceleration Info:\r\n"))
	f.Add([]byte("\xef\xbb\xbfApplications Graphics Acceleration Info:\nUptime: 1 Realtime: 2"))
	f.Add(toUTF16(two[:300], false))
	f.Add([]byte("\n \n\t\nApplications Graphics Acceleration Info:"))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, dw := dumps(t, bytes.NewReader(data))
		got, dg := dumps(t, iotest.OneByteReader(bytes.NewReader(data)))
		sameDumps(t, "byte by byte", got, want, dg, dw)
	})
}

// TestDumpReaderLongDumps: dumps over maxLine between ordinary ones, a line over maxLine
// (skipped, counted) and a stretch over maxDump (cut there, its rest skipped) are cut alike
// however the reader hands the input out.
func TestDumpReaderLongDumps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 40 MB of input")
	}
	small := synthDump(nil, 17, 5000, 42, "com.a", []synthWin{{title: "com.a/A", rows: 3, start: 1e9, period: 16_666_667, total: 3}})
	var in []byte
	in = append(in, small...)
	in = append(in, small...)
	for i := 0; i < 3000; i++ { // 1.5 MB of ordinary lines inside one dump
		in = append(in, bytes.Repeat([]byte{'x'}, 499)...)
		in = append(in, '\n')
	}
	in = append(in, small...)
	in = append(in, bytes.Repeat([]byte{'y'}, maxLine+10)...) // too long: skipped
	in = append(in, "\nafter the long line\n"...)
	in = append(in, small...)
	line := append(bytes.Repeat([]byte{'z'}, 1<<19), '\n')
	for len(in) < maxDump+4<<20 { // one dump over maxDump: cut at maxDump
		in = append(in, line...)
	}
	in = append(in, small...)
	want, dw := dumps(t, bytes.NewReader(in))
	got, dg := dumps(t, iotest.HalfReader(bytes.NewReader(in)))
	if len(got) != len(want) || len(got) < 5 { // (the stretch over maxDump is one dump, its rest skipped)
		t.Fatalf("%d dumps, read in one piece %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("dump %d differs (%d and %d bytes)", i, len(got[i]), len(want[i]))
		}
	}
	if dg.read != dw.read || dg.longLines != 1 || dw.longLines != 1 || dw.overDumps != 1 {
		t.Errorf("read %d, %d long lines; in one piece %d, %d, %d over maxDump", dg.read, dg.longLines, dw.read, dw.longLines, dw.overDumps)
	}
}

// TestDumpReaderSizes: dumps that grow, shrink a lot and come in one piece or byte by byte are
// cut at their headers, into the text they were.
func TestDumpReaderSizes(t *testing.T) {
	win := func(rows int) []synthWin {
		return []synthWin{{title: "com.a/A", rows: rows, start: 1e9, period: 16_666_667, total: int64(rows)}}
	}
	var in []byte
	for _, rows := range []int{3, 3, 40, 2, 2, 60, 1, 5, 5, 5, 0, 30} {
		in = synthDump(in, 23, 5000, 42, "com.a", win(rows))
		if rows == 5 {
			in = append(in, " \t\n\t Applications Graphics Acceleration Info:\n"...) // (blanks before it)
		}
	}
	want, dw := dumps(t, bytes.NewReader(in))
	if len(want) != 15 || strings.Join(want, "") != string(in) {
		t.Fatalf("%d dumps (want 15: 12 and three bare headers), joined %d bytes of %d", len(want), len(strings.Join(want, "")), len(in))
	}
	for _, r := range []io.Reader{iotest.OneByteReader(bytes.NewReader(in)), iotest.HalfReader(bytes.NewReader(in))} {
		got, dg := dumps(t, r)
		sameDumps(t, "in pieces", got, want, dg, dw)
	}
}
