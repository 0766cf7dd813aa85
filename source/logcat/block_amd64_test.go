package logcat

import "testing"

// TestLineCuesAVX2: lineCuesAVX2 finds the '\n', the ':' and the cue pairs exactly, or says
// (nl = -1) that the '\n' is not in the rounds it could read (33 bytes each, 32 apart).
func TestLineCuesAVX2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	forCueTexts(func(b []byte) {
		nl, colon, _, pair := refCues(b)
		read := 0 // the bytes its rounds cover
		for p := 0; p+33 <= len(b); p += 32 {
			read = p + 32
		}
		gn, gc, gcue := lineCuesAVX2(b)
		if nl < 0 || nl >= read {
			if gn != -1 {
				t.Fatalf("on %q: nl %d, want -1", b, gn)
			}
			return
		}
		if gn != nl || gc != colon || gcue != pair {
			t.Fatalf("on %q: (%d, %d, %v), want (%d, %d, %v)", b, gn, gc, gcue, nl, colon, pair)
		}
	})
}
