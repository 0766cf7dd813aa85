package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf16"

	"github.com/fpstop/fpstop/source"
)

// inputKind is what a captured input holds.
type inputKind string

const (
	inputGfxinfo   inputKind = "gfxinfo"
	inputLogcat    inputKind = "logcat"
	inputRecording inputKind = "recording"
)

// openInput opens FILE or "-" (stdin) and tells what it holds from its first bytes, without
// consuming them. For stdin it waits only for the first chunk, so a live pipe starts at once.
func openInput(path string, stdin io.Reader) (*bufio.Reader, io.Closer, inputKind, error) {
	var r io.Reader
	var c io.Closer = io.NopCloser(nil)
	if path == "-" {
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, "", fmt.Errorf("cannot read input: %w", err)
		}
		st, err := f.Stat()
		if err == nil && st.IsDir() {
			f.Close()
			return nil, nil, "", fmt.Errorf("cannot read input: %s is a directory", path)
		}
		r, c = f, f
	}
	br := bufio.NewReaderSize(r, 256<<10)
	if _, err := br.Peek(1); err != nil {
		c.Close()
		if err == io.EOF {
			return nil, nil, "", fmt.Errorf("input %s is empty", path)
		}
		return nil, nil, "", fmt.Errorf("cannot read input %s: %w", path, err)
	}
	n := br.Buffered()
	if path != "-" && n < 64<<10 {
		// a file: look further than the first chunk (dumps can start with chatter)
		if head, _ := br.Peek(64 << 10); len(head) > n {
			n = len(head)
		}
	}
	head, _ := br.Peek(n)
	return br, c, detectKind(head), nil
}

// detectKind classifies the first bytes of an input.
func detectKind(head []byte) inputKind {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		return inputRecording // gzip: only recordings are gzip-compressed
	}
	text := decodeHead(head)
	trim := strings.TrimLeft(text, " \t\r\n")
	if strings.HasPrefix(trim, `{"type":"header"`) || strings.HasPrefix(trim, `{"type":`) {
		return inputRecording
	}
	for _, marker := range []string{"Graphics info for pid", "---PROFILEDATA---", "Applications Graphics Acceleration Info",
		"Total frames rendered", "Profile data in ms", "Flags,IntendedVsync", "No process found for:",
		"Failure while dumping the app"} {
		if strings.Contains(text, marker) {
			return inputGfxinfo
		}
	}
	// rows without a header (Google's doc sample): lines of 14+ comma-separated integers
	if first, _, _ := strings.Cut(trim, "\n"); strings.Count(first, ",") >= 13 && isNumericCSV(first) {
		return inputGfxinfo
	}
	return inputLogcat
}

func isNumericCSV(s string) bool {
	for _, f := range strings.Split(strings.TrimRight(strings.TrimSpace(s), ","), ",") {
		if f == "" {
			return false
		}
		for _, c := range f {
			if (c < '0' || c > '9') && c != '-' {
				return false
			}
		}
	}
	return true
}

// decodeHead turns the head of a file into text for detection (UTF-8 with or without BOM,
// UTF-16 with a BOM, as Windows PowerShell redirects write, or without one).
func decodeHead(b []byte) string {
	u16, be, bom := source.SniffUTF16(b)
	switch {
	case u16:
		le := !be
		if bom {
			b = b[2:]
		}
		u := make([]uint16, 0, len(b)/2)
		for i := 0; i+1 < len(b); i += 2 {
			if le {
				u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
			} else {
				u = append(u, uint16(b[i+1])|uint16(b[i])<<8)
			}
		}
		return string(utf16.Decode(u))
	case bytes.HasPrefix(b, []byte{0xef, 0xbb, 0xbf}):
		return string(b[3:])
	}
	return string(b)
}
