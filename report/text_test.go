package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/metrics"
)

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, sampleReport()); err != nil {
		t.Fatal(err)
	}
	want := "fpstop 1.2.3 · source gfxinfo · package com.example.app · refresh 120.00 Hz\n" +
		"duration 61.5 s · frames 6000 · idle 3.0 s\n" +
		"fps 117.25 · fps_wall 110.00 · 1% low 40.10 · janky 42 (0.70 %)\n" +
		"drop levels: best 5958 · normal 30 · middle 10 · high 1 · frozen 1\n" +
		"frame time p50 6 ms · p90 8 · p95 9 · p99 21\n" +
		"frames lost between polls: 3\n" +
		"slow: android.app.ActivityThread$H null #EXECUTE_TRANSACTION ×3 max 250.5 ms\n" +
		"warning: recording x: skipped its torn last line\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	// An empty report: dashes for what is unknown, nothing made up.
	b.Reset()
	if err := WriteText(&b, &metrics.Report{Source: "sim"}); err != nil {
		t.Fatal(err)
	}
	if want := "fpstop  · source sim · package – · refresh –\n"; !bytes.HasPrefix(b.Bytes(), []byte(want)) {
		t.Errorf("empty report:\n%s", b.String())
	}
	if bytes.Contains(b.Bytes(), []byte("frame time")) || bytes.Contains(b.Bytes(), []byte("lost")) {
		t.Errorf("empty report prints figures it does not have:\n%s", b.String())
	}
}

type brokenWriter struct{ n int }

func (f *brokenWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestWriteTextStopsAtTheFirstError(t *testing.T) {
	f := &brokenWriter{}
	if err := WriteText(f, sampleReport()); err == nil || err.Error() != "disk full" {
		t.Fatalf("err %v, want disk full", err)
	}
	if f.n != 1 {
		t.Errorf("%d writes after the first failed, want none", f.n-1)
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0 frames"}, {1, "1 frame"}, {2, "2 frames"}, {-1, "-1 frames"}} {
		if got := Plural(c.n, "frame"); got != c.want {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	var b strings.Builder
	rep := &metrics.Report{Source: "sim"}
	rep.SkippedFrames.Events, rep.SkippedFrames.Frames = 1, 31
	if err := WriteMarkdownSeries(&b, rep, []metrics.SlicePoint{{FPS: 60}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 1 line, 31 frames |", "(1 slice, one character per 1 slice,"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, b.String())
		}
	}
}
