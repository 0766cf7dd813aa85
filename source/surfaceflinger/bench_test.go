package surfaceflinger

import (
	"bytes"
	"context"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// A full 127-record --latency dump, as polled twice a second at 120 Hz.
func BenchmarkParseLatency(b *testing.B) {
	sf := fakeadb.NewSurfaceFlinger(fakeadb.SFAndroid14, 120)
	name := sf.AddLayer(gamePkg, gamePkg+".GameActivity", true)
	for i := int64(0); i < 200; i++ {
		at := 5_000_000_000_000 + i*16_666_666
		sf.Present(name, at-1, at, at-2)
	}
	var buf bytes.Buffer
	cmd := "dumpsys SurfaceFlinger --latency '" + name + "'"
	if err := sf.Serve(context.Background(), cmd, &buf); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if l := ParseLatency(data); len(l.Records) != 127 {
			b.Fatalf("%d records", len(l.Records))
		}
	}
}
