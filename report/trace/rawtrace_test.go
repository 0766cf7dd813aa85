package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// ExportRaw puts each session's chunks back together byte for byte (text and binary
// chunks, interleaved sessions, more sessions than it keeps open), skips other streams and any
// name fpstop does not give a session file, and refuses to overwrite without force.
func TestExportRawTraces(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "run.jsonl.gz")
	w, err := record.Create(rec, record.Header{}, record.Options{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	var evs []source.Event
	for i := 0; i < 30; i++ {
		name := []string{"fpstop-ab1-0.pftrace", "fpstop-ab1-1.pftrace", "fpstop-ab1-2.pftrace", "fpstop-ab1-3.pftrace",
			"fpstop-ab1-4.pftrace", "fpstop-ab1-5.pftrace"}[i%6]
		chunk := []byte{0x0a, byte(i), 0xff, 0xfe, byte(i * 7)} // not UTF-8: stored as base64
		if i%4 == 0 {
			chunk = []byte("plain text chunk")
		}
		want[name] = append(want[name], chunk...)
		evs = append(evs, &source.Raw{AtNs: int64(i), Stream: "perfetto/" + name, Text: chunk})
	}
	evs = append(evs, &source.Raw{Stream: "gfxinfo", Text: []byte("dump")},
		&source.Raw{Stream: "perfetto/../evil.pftrace", Text: []byte("x")},
		&source.Raw{Stream: "perfetto/fpstop-AB-0.pftrace", Text: []byte("x")})
	if err := w.Write(evs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	files, err := ExportRaw(rec, out, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Fatalf("%d files, want %d: %v", len(files), len(want), files)
	}
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s: %x (%v), want %x", name, got, err, b)
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != len(want) {
		t.Errorf("%d files in the directory, want %d", len(ents), len(want))
	}
	if _, err := ExportRaw(rec, out, false); err == nil {
		t.Error("overwrote the traces without force")
	}
	if _, err := ExportRaw(rec, out, true); err != nil {
		t.Errorf("force: %v", err)
	}
	norec := filepath.Join(dir, "none.jsonl")
	if _, err := ExportRaw(norec, out, true); err == nil {
		t.Error("no raw file: no error")
	}
}
