package gfxinfo

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// A dialog is a window of its own (a new view root, counters from 0) that Android often titles
// as its activity; it comes and goes. Neither its appearing (printed before or after the
// activity, with one row or many) nor its going is damage: no warning.
func TestDialogOpenCloseIsNoDamage(t *testing.T) {
	const p = 16_666_667
	title := pkg + "/.Main"
	for _, dialogFirst := range []bool{false, true} {
		for _, rows := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("first=%v/rows=%d", dialogFirst, rows), func(t *testing.T) {
				var dumps [][]byte
				main := synthWin{title: title, rows: 40, start: 10e9, period: p, firstID: 1, total: 40}
				at := int64(11_000)
				dumps = append(dumps, bytes.ReplaceAll(synthDump(nil, 23, at, 5, pkg, []synthWin{main}), []byte("ViewRootImpl@1a2b30"), []byte("ViewRootImpl@aaaa0")))
				for cycle := 0; cycle < 3; cycle++ {
					// open: the dialog draws rows frames
					main.start, main.firstID, main.total = main.start+30*p, main.firstID+30, main.total+30
					dlg := synthWin{title: title, rows: rows, start: main.start + 35*p + 5e6, period: p, firstID: int64(5000 + 1000*cycle), total: int64(rows)}
					wins := []synthWin{main, dlg}
					if dialogFirst {
						wins = []synthWin{dlg, main}
					}
					at += 500
					d := synthDump(nil, 23, at, 5, pkg, wins)
					// the roots: the activity's stays, the dialog's is new each time
					d = bytes.ReplaceAll(d, []byte("ViewRootImpl@1a2b3"), []byte("ViewRootImpl@X"))
					mi, di := 0, 1
					if dialogFirst {
						mi, di = 1, 0
					}
					d = bytes.ReplaceAll(d, []byte(fmt.Sprintf("ViewRootImpl@X%d", mi)), []byte("ViewRootImpl@aaaa0"))
					d = bytes.ReplaceAll(d, []byte(fmt.Sprintf("ViewRootImpl@X%d", di)), []byte(fmt.Sprintf("ViewRootImpl@dd%d", cycle)))
					dumps = append(dumps, d)
					// closed
					main.start, main.firstID, main.total = main.start+30*p, main.firstID+30, main.total+30
					at += 500
					d = synthDump(nil, 23, at, 5, pkg, []synthWin{main})
					d = bytes.ReplaceAll(d, []byte("ViewRootImpl@1a2b30"), []byte("ViewRootImpl@aaaa0"))
					dumps = append(dumps, d)
				}
				evs := feed(t, dumps...)
				if n, want := len(frames(evs)), 40+6*30+3*rows; n != want {
					t.Errorf("%d frames, want %d (each once, the dialogs' among them)", n, want)
				}
				for _, e := range evs {
					if n, ok := e.(*source.Notice); ok && n.Level != source.LevelInfo {
						t.Errorf("notice on clean dumps: %s", n.Text)
					}
				}
			})
		}
	}
}
