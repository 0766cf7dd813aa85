package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// headerOf is the screen's first line (device, app, source, state).
func headerOf(screen string) string { return strings.SplitN(screen, "\n", 2)[0] }

// TestPerfettoOfferKey (issue 33): the dashboard (the real binary in tmux) in its default mode,
// auto, on an Android 13 phone (SDK 33) whose app does not log its Looper messages, over a real
// adb server against the fake phone. auto reads gfxinfo and offers Perfetto on the notice line
// without starting a trace. With tracing busy, P leaves gfxinfo running and the screen says
// why; once the phone's tracing is free, P switches: the header reads `perfetto ·
// FrameTimeline` and the worst frames show blame; P again goes back to gfxinfo, and the trace
// is stopped and its files removed by the time the screen says so.
func TestPerfettoOfferKey(t *testing.T) {
	t.Parallel() // (no timing is asserted: the screen is waited for)
	screenTest(t)
	ph := startPhone(t, 60, "janky", 34, 0)
	env, tr := tracingEnv(t, ph, 33, "13")
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "-s", env.Serial, "-p", pkg, "--no-mouse")
	s := p.waitFor(20*time.Second, "press P for Perfetto", "P perfetto", "│ gfxinfo │")
	if h := headerOf(s); !strings.Contains(h, "gfxinfo") {
		t.Errorf("auto's header: %q", h)
	}
	if run, files := tr.Running(), fpstopFiles(tr); len(run) != 0 || len(files) != 0 {
		t.Fatalf("auto traced before P: running %v, files %v", run, files)
	}

	tr.SetBusy(true)
	p.key("P")
	s = p.waitFor(20*time.Second, "tracing is busy on the phone", "still reading gfxinfo")
	if h := headerOf(s); !strings.Contains(h, "gfxinfo") || strings.Contains(h, "perfetto") {
		t.Errorf("a refused P changed the source: %q", h)
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "busy") {
			t.Logf("refused: %s", strings.TrimSpace(l))
			if strings.Contains(l, "adb ") || strings.Contains(l, "perfetto --") {
				t.Errorf("command text on screen: %q", l)
			}
		}
	}
	if run, files := tr.Running(), fpstopFiles(tr); len(run) != 0 || len(files) != 0 {
		t.Errorf("a refused start left running %v, files %v", run, files)
	}

	tr.SetBusy(false)
	p.key("P")
	p.waitFor(30*time.Second, "perfetto · FrameTimeline", "P back to gfxinfo")
	if len(tr.Running()) == 0 {
		t.Errorf("the header says Perfetto but no session runs on the phone")
	}
	p.waitFor(20*time.Second, "FeedActivity")
	// the app's window (w cycles the windows in the order they came): the worst frames' rows
	// then have room for the blame
	for i := 0; !strings.Contains(p.screen(), "Worst frames · FeedActivity"); i++ {
		if i == 6 {
			t.Fatalf("w never filtered FeedActivity:\n%s", p.screen())
		}
		p.key("w")
		time.Sleep(300 * time.Millisecond)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		blamed := 0
		s = p.screen()
		for _, w := range worstRows(s) {
			if strings.HasPrefix(w.blame, "app") || strings.HasPrefix(w.blame, "SurfaceFlinger") || strings.HasPrefix(w.blame, "buffer") {
				blamed++
			}
		}
		if blamed > 0 && strings.Contains(s, "blame") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no blamed frame on screen 20 s after the switch:\n%s", s)
		}
		time.Sleep(200 * time.Millisecond)
	}

	p.key("P")
	s = p.waitFor(20*time.Second, "Perfetto stopped")
	if run, files := tr.Running(), fpstopFiles(tr); len(run) != 0 || len(files) != 0 {
		t.Errorf("back on gfxinfo, the trace goes on: running %v, files %v\n%s", run, files, s)
	}
	s = p.waitFor(20*time.Second, "press P for Perfetto")
	if h := headerOf(s); strings.Contains(h, "perfetto") {
		t.Errorf("back: header %q", h)
	}
	p.key("q")
	if !p.exited(10 * time.Second) {
		t.Fatalf("q did not quit:\n%s", p.screen())
	}
}

// TestPerfettoNotOfferedAndroid11 (issue 33): on Android 11 (SDK 30) auto keeps gfxinfo and
// says why Perfetto is not on offer; there is no P hint, P says so, and nothing is traced.
func TestPerfettoNotOfferedAndroid11(t *testing.T) {
	t.Parallel() // (no timing is asserted: the screen is waited for)
	screenTest(t)
	ph := startPhone(t, 60, "janky", 34, 0)
	env, tr := tracingEnv(t, ph, 30, "11")
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "-s", env.Serial, "-p", pkg, "--no-mouse")
	s := p.waitFor(20*time.Second, "Android 11: reading gfxinfo", "needs Android 12+", "│ gfxinfo │")
	if strings.Contains(s, "press P") || strings.Contains(s, "P perfetto") {
		t.Errorf("Perfetto offered on Android 11:\n%s", s)
	}
	p.key("P")
	p.waitFor(10*time.Second, "P: nothing to switch to")
	if run, files := tr.Running(), fpstopFiles(tr); len(run) != 0 || len(files) != 0 {
		t.Errorf("Android 11: running %v, files %v", run, files)
	}
	p.key("q")
	if !p.exited(10 * time.Second) {
		t.Fatalf("q did not quit:\n%s", p.screen())
	}
}
