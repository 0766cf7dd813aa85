package logcat

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/source"
)

// decoded is what a Decoder made of a text.
type decoded struct {
	Events []source.Event
	Stats  Stats
	NowNs  int64
}

// decodeBoth decodes text line by line with Line and in blocks of size bytes with Block (a
// torn last line carried to the next block, as the reader does).
func decodeBoth(text []byte, size int) (lineWise, blockWise decoded) {
	show := func(d *Decoder) decoded {
		d.Finish()
		return decoded{d.Events(), d.Stats(), d.NowNs()}
	}
	a := NewDecoder()
	rest := text
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		a.Line(rest[:i])
		rest = rest[i+1:]
	}
	if len(rest) > 0 {
		a.Line(rest)
	}
	b := NewDecoder()
	var carry []byte
	for off := 0; off < len(text); off += size {
		chunk := append(carry, text[off:min(off+size, len(text))]...)
		end, _ := b.Block(chunk)
		carry = append([]byte(nil), chunk[end:]...)
	}
	if len(carry) > 0 {
		b.Line(carry)
	}
	return show(a), show(b)
}

// TestBlockMatchesLine: Block (the reader's fast path) decodes every real capture and every
// fuzz seed exactly as Line does, whatever the block size.
func TestBlockMatchesLine(t *testing.T) {
	inputs := map[string][]byte{
		"seeds": []byte(strings.Join(fuzzSeeds, "\n") + "\n" + strings.Join(fuzzSeeds, "\r\n")),
		// a threadtime line ends a long-format entry: the next bare line is stray text
		"long then threadtime": []byte(fuzzSeeds[7] + "\n>>>>> Dispatching to " + hTarget + ": 1\n" + fuzzSeeds[0] +
			"\n<<<<< Finished to " + hTarget + "\n" + fuzzSeeds[1] + "\n"),
	}
	inputs["plain threadtime edge cases"] = plainEdgeCases()
	for _, path := range realdata.Files(t, "logcat") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inputs[path] = data
	}
	for name, data := range inputs {
		for _, size := range []int{1, 7, 100, 4096, 1 << 20} {
			if size == 1 && len(data) > 200_000 {
				continue
			}
			lw, bw := decodeBoth(data, size)
			if !reflect.DeepEqual(lw, bw) {
				t.Fatalf("%s, blocks of %d: Block and Line differ\nLine:\n%s\nBlock:\n%s", name, size, show(lw), show(bw))
			}
		}
	}
}

// plainEdgeCases is threadtime text that takes Block's one-pass path or just misses it: cues
// ('>', '<', '!') before, inside and after the tag, markers in runs of '>' and cut short,
// messages starting with 'S' or 'D', ':' in tags and at the line's end, "\r\n" endings, ids
// off their columns, short and long fractions.
func plainEdgeCases() []byte {
	heads := []string{"06-23 14:06:07.808  1863  1914 ", "06-23 14:06:07.808 123456  1914 ", "06-23 14:06:07.808  1863 1914 ",
		"06-23 14:06:07. 1863  1914 ", "06-23 14:06:07.808123456  1863  1863 ", "06-23 14:06:07.808     1     1 ", "06-23 14:06:07.808 1863a 1914 "}
	tags := []string{"D Looper  : ", "I Choreographer: ", "D a:b: ", "W >>>>> Dispatching to x: ", "D Looper:", "D tag :  ", "E x: "}
	msgs := []string{">>>>> Dispatching to " + vsyncTarget + ": 0", "<<<<< Finished to " + vsyncTarget,
		"println : >>>>> Dispatching to " + hTarget + ": 159", ">>>>>>> Dispatching to " + hTarget + ": 1", "<<<<< Finished to " + hTarget,
		"x <<<<< Finished to " + hTarget + " >>>>> Dispatching to " + hTarget + ": 2", "Skipped 31 frames!  The application may be doing too much work",
		"Slow dispatch took 292ms main h=a c=b m=0", "Drained", "Dispatch took 120ms on main, h=Handler (x) {1} cb=null msg=159",
		"DebugLooper: set default", "current->uid=99136 a<-b c>d <<<<< F >>>>> D", "plain text with no cue at all, long enough to need words",
		"!", "at main: Skipped 7 frames!", "", "  >>>>> Dispatching to " + hTarget + ": 3", ">>>>> Dispatching to", "<<<<< Fin"}
	var sb strings.Builder
	for _, h := range heads {
		for _, t := range tags {
			for i, m := range msgs {
				sb.WriteString(h + t + m)
				if i%3 == 0 {
					sb.WriteString("\r")
				}
				sb.WriteString("\n")
			}
		}
	}
	return []byte(sb.String())
}

// FuzzBlock: Block decodes any text exactly as Line does.
func FuzzBlock(f *testing.F) {
	f.Add(plainEdgeCases()[:4000], 333)
	f.Add([]byte(strings.Join(fuzzSeeds, "\n")), 5)
	f.Add([]byte(strings.Join(fuzzSeeds, "\r\n")), 64)
	f.Fuzz(func(t *testing.T, text []byte, size int) {
		if size <= 0 || size > 1<<16 {
			size = 1 + (size&0xffff+0xffff)%97
		}
		lw, bw := decodeBoth(text, size)
		if !reflect.DeepEqual(lw, bw) {
			t.Fatalf("Block and Line differ\nLine:\n%s\nBlock:\n%s", show(lw), show(bw))
		}
	})
}

func show(d decoded) string {
	var sb strings.Builder
	for _, ev := range d.Events {
		fmt.Fprintf(&sb, "%T %+v\n", ev, ev)
	}
	fmt.Fprintf(&sb, "%+v now=%d", d.Stats, d.NowNs)
	return sb.String()
}
