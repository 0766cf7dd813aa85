package fakeadb

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func sfRun(t *testing.T, sf *SurfaceFlinger, cmd string) string {
	t.Helper()
	var b bytes.Buffer
	if err := sf.Serve(context.Background(), cmd, &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Each release's --list names, and the layer with the buffers.
func TestSurfaceFlingerNaming(t *testing.T) {
	cases := []struct {
		style      SFStyle
		frames     string // the returned layer name must contain this
		listPrefix string
	}{
		{SFAndroid11, "SurfaceView - a.b/a.b.Game#0", "SurfaceView - "},
		{SFAndroid12, "SurfaceView[a.b/a.b.Game](BLAST)#", "SurfaceView[a.b/a.b.Game]#"},
		{SFAndroid14, "SurfaceView[a.b/a.b.Game]@0(BLAST)#", ""},
		{SFAndroid15, "SurfaceView[a.b/a.b.Game]@0(BLAST)#", "RequestedLayerState{"},
	}
	for _, c := range cases {
		sf := NewSurfaceFlinger(c.style, 60)
		name := sf.AddLayer("a.b", "a.b.Game", true)
		if !strings.Contains(name, c.frames) {
			t.Errorf("style %d: layer %q, want %q", c.style, name, c.frames)
		}
		list := sfRun(t, sf, "dumpsys SurfaceFlinger --list")
		if !strings.HasPrefix(list, c.listPrefix) || !strings.Contains(list, name) || !strings.Contains(list, "a.b/a.b.Game#") {
			t.Errorf("style %d: list %q", c.style, list)
		}
		if c.style >= SFAndroid14 && !strings.Contains(list, " SurfaceView[") {
			t.Errorf("style %d: no identity-hash prefix in %q", c.style, list)
		}
	}
}

// --latency: the period, 127 records oldest first (unwritten slots 0 0 0), a blank line;
// Android 16 prints the period only.
func TestSurfaceFlingerLatency(t *testing.T) {
	sf := NewSurfaceFlinger(SFAndroid14, 120)
	name := sf.AddLayer("a.b", "a.b.Game", true)
	for i := int64(1); i <= 3; i++ {
		sf.Present(name, i*10, i*100, i*50)
	}
	out := sfRun(t, sf, "dumpsys SurfaceFlinger --latency '"+name+"'")
	lines := strings.Split(out, "\n")
	if lines[0] != "8333333" || len(lines) != 1+127+2 || lines[125] != "10\t100\t50" || lines[127] != "30\t300\t150" || lines[1] != "0\t0\t0" {
		t.Fatalf("%d lines: %q … %q", len(lines), lines[:2], lines[124:])
	}
	sf16 := NewSurfaceFlinger(SFAndroid16, 120)
	n16 := sf16.AddLayer("a.b", "a.b.Game", true)
	sf16.Present(n16, 1, 2, 3)
	if out := sfRun(t, sf16, "dumpsys SurfaceFlinger --latency '"+n16+"'"); out != "8333333\n" {
		t.Errorf("Android 16: %q", out)
	}
}

// --timestats: nothing until enabled; counts only while on; -disable freezes statsEnd.
func TestSurfaceFlingerTimestats(t *testing.T) {
	sf := NewSurfaceFlinger(SFAndroid16, 60)
	name := sf.AddLayer("a.b", "a.b.Game", true)
	sf.Present(name, 1, 1_000_000, 1)
	if out := sfRun(t, sf, "dumpsys SurfaceFlinger --timestats -dump"); out != "" {
		t.Fatalf("never enabled, dump %q", out)
	}
	sfRun(t, sf, "dumpsys SurfaceFlinger --timestats -enable")
	for i := int64(2); i <= 5; i++ {
		sf.Present(name, 1, i*16_666_667, 1)
	}
	out := sfRun(t, sf, "dumpsys SurfaceFlinger --timestats -dump")
	for _, want := range []string{"layerName = SurfaceView[a.b/a.b.Game]@0(BLAST)#", "packageName = a.b", "totalFrames = 4", "16ms=3"} {
		if !strings.Contains(out, want) {
			t.Errorf("dump lacks %q:\n%s", want, out)
		}
	}
	sfRun(t, sf, "dumpsys SurfaceFlinger --timestats -disable")
	if sf.TimestatsOn() {
		t.Error("still on after -disable")
	}
}
