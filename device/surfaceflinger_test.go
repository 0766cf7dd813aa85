package device

import (
	"errors"
	"strings"
	"testing"
)

func TestValidLayerName(t *testing.T) {
	good := []string{
		"SurfaceView - com.example.game/com.example.game.GameActivity#0",
		"SurfaceView[com.example.game/com.example.game.GameActivity](BLAST)#0",
		"SurfaceView[com.example.game/com.example.game.GameActivity]@0(BLAST)#1234",
		"632a464 SurfaceView[com.example.game/com.example.game.GameActivity]@0(BLAST)#88",
		"com.example.feed/com.example.feed.FeedActivity$_4242#7",
		"ActivityRecord{5e6ac22 u0 x=y}#3",
	}
	for _, n := range good {
		if err := ValidLayerName(n); err != nil {
			t.Errorf("ValidLayerName(%q) = %v, want nil", n, err)
		}
	}
	bad := []string{
		"", "   ", "-dump", "a'b", `a"b`, `a\b`, "a;reboot", "a|sh", "a&b", "a`id`", "a$(id)b\n",
		"a\x00b", "a\tb", "a\nb", "a<b", "a>b", "a*b", "a?b", "a~b", "ä", "a,b", strings.Repeat("x", MaxLayerNameLen+1),
	}
	for _, n := range bad {
		err := ValidLayerName(n)
		if err == nil {
			t.Errorf("ValidLayerName(%q) = nil, want a refusal", n)
			continue
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidLayerName(%q) = %v, want ErrInvalid", n, err)
		}
	}
}

func TestLayerLatencyCommand(t *testing.T) {
	cmd, err := LayerLatencyCommand("SurfaceView[a.b/a.b.C]@0(BLAST)#5")
	if err != nil {
		t.Fatal(err)
	}
	if want := "dumpsys SurfaceFlinger --latency 'SurfaceView[a.b/a.b.C]@0(BLAST)#5'"; cmd != want {
		t.Errorf("got %q, want %q", cmd, want)
	}
	if _, err := LayerLatencyCommand("x' ; reboot ; '"); err == nil {
		t.Error("a quote in a layer name reached the command")
	}
}
