package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/fpstop/fpstop/internal/realdata"
)

// TestDetectPerfetto: binary Perfetto traces (plain and gzip'd) are told from recordings and
// text by their content, whatever their name; text that happens to start with a newline is not
// a trace.
func TestDetectPerfetto(t *testing.T) {
	dir := realdata.Dir(t, "perfetto")
	for _, sub := range []string{"ft_events", "ft_power_mode", "doframe_depth"} {
		b, err := os.ReadFile(filepath.Join(dir, sub, "trace.pftrace"))
		if err != nil {
			t.Fatal(err)
		}
		if got := detectKind(b); got != inputPerfetto {
			t.Errorf("%s: %s, want perfetto", sub, got)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(b)
		zw.Close()
		if got := detectKind(gz.Bytes()); got != inputPerfetto {
			t.Errorf("%s gzip'd: %s, want perfetto", sub, got)
		}
	}
	var rec bytes.Buffer
	zw := gzip.NewWriter(&rec)
	zw.Write([]byte(`{"type":"header","format":1}` + "\n"))
	zw.Close()
	for _, in := range []string{"\n--------- beginning of main\n05-18 00:42:29.500  123  123 D Looper  : x",
		"\n\n", "\n\x05\x08\x01\x10\x02", rec.String()} {
		if got := detectKind([]byte(in)); got == inputPerfetto {
			t.Errorf("detectKind(%q) = perfetto", in[:min(20, len(in))])
		}
	}
}
