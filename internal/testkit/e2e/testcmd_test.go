package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/internal/buildinfo"
	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// coldPhone is the simulated phone answering the commands a cold start sends, as Android 14
// does: am force-stop kills the app (a new pid afterwards), resolve-activity names the launcher
// activity, am start -W reports the launch.
func coldPhone(ph *phone) fakeadb.Handler {
	return func(ctx context.Context, cmd string, w io.Writer) error {
		switch {
		case cmd == "am force-stop "+pkg:
			ph.pid.Add(1)
			return nil
		case cmd == "cmd package resolve-activity --brief -c android.intent.category.LAUNCHER "+pkg:
			_, err := fmt.Fprintf(w, "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n%s/.FeedActivity\n", pkg)
			return err
		case strings.HasPrefix(cmd, "am start "):
			_, err := fmt.Fprintf(w, "Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] cmp=%s/.FeedActivity }\nStatus: ok\nLaunchState: COLD\nActivity: %s/.FeedActivity\nTotalTime: 412\nWaitTime: 415\nComplete\n", pkg, pkg)
			return err
		}
		return ph.handler(ctx, cmd, w)
	}
}

// TestTestCommandCold: fpstop test --cold against the fake phone over the real adb server runs
// N iterations, and the phone sees a force-stop and a launch before each.
func TestTestCommandCold(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real adb server and three 2 s measurements")
	}
	t.Parallel()
	ph := startPhone(t, 60, "smooth", 3, 0) // a continuous scroll: frames in any 2 s
	env := adbtest.Start(t, fakeadb.Config{Handler: coldPhone(ph), Model: "Pixel 7", Android: "14", SDK: 34})
	dir := filepath.Join(t.TempDir(), "runs")
	const n = 3
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), []string{"test", "--adb-port", fmt.Sprint(env.Port), "-s", env.Serial,
		"--iterations", fmt.Sprint(n), "--cold", "--duration", "2s", "--command", `test "$FPSTOP_PACKAGE" = ` + pkg, "--record-dir", dir, "--format", "json"},
		cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Build: buildinfo.Info{Version: "e2e"},
			Getenv: func(k string) string {
				if k == "FPSTOP_CONFIG" || k == "XDG_CONFIG_HOME" {
					return ""
				}
				return os.Getenv(k)
			}})
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var stops, launches []int
	for i, c := range env.Fake.Commands() {
		switch {
		case c == "am force-stop "+pkg:
			stops = append(stops, i)
		case c == "am start -W -n "+pkg+"/.FeedActivity":
			launches = append(launches, i)
		case strings.HasPrefix(c, "am "):
			t.Errorf("unexpected command %q", c)
		}
	}
	if len(stops) != n || len(launches) != n {
		t.Fatalf("%d force-stops and %d launches for %d iterations: %q", len(stops), len(launches), n, env.Fake.Commands())
	}
	for i := range stops {
		if stops[i] > launches[i] {
			t.Errorf("iteration %d launched before stopping", i+1)
		}
	}
	var sum compare.Summary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Iterations) != n || sum.Failed != 0 || !sum.Cold || sum.Package != pkg || sum.Source != "gfxinfo" {
		t.Fatalf("summary: %+v", sum)
	}
	for _, it := range sum.Iterations {
		if it.Values["fps"] == nil {
			t.Errorf("iteration %d measured no frames", it.Index)
		}
		if _, err := os.Stat(filepath.Join(dir, it.Recording)); err != nil {
			t.Error(err)
		}
	}
}

// Without --duration the measurement lasts as long as the driver command: the run ends when it
// does (a measurement that ignored the driver's end would never finish).
func TestTestCommandUntilDriverEnds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real adb server")
	}
	t.Parallel()
	ph := startPhone(t, 60, "smooth", 4, 0) // a continuous scroll: frames in any 2 s
	env := startEnv(t, ph)
	dir := filepath.Join(t.TempDir(), "runs")
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), []string{"test", "--adb-port", fmt.Sprint(env.Port), "-s", env.Serial,
		"--iterations", "1", "--command", "sleep 2", "--record-dir", dir, "--format", "json"},
		cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Build: buildinfo.Info{Version: "e2e"},
			Getenv: func(k string) string { return "" }})
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var sum compare.Summary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Iterations) != 1 || sum.Iterations[0].Status != compare.StatusOK || sum.Iterations[0].Values["fps"] == nil {
		t.Errorf("summary: %+v", sum)
	}
	for _, c := range env.Fake.Commands() {
		if strings.HasPrefix(c, "am ") {
			t.Errorf("a test without --cold sent %q", c)
		}
	}
}

// TestTestCommandKeepsAutoSource: with --source auto the first iteration's choice holds for
// every iteration — here the app starts logging its Looper only after iteration 1 (a probe then
// would pick gfxinfo+logcat), and every iteration still reads gfxinfo, as the first did.
func TestTestCommandKeepsAutoSource(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real adb server and two 2 s measurements")
	}
	t.Parallel()
	ph := startPhone(t, 60, "smooth", 4, 0)
	env := startEnv(t, ph)
	dir := filepath.Join(t.TempDir(), "runs")
	stop := make(chan struct{})
	defer close(stop)
	go func() { // the app turns its Looper printer on once iteration 1 is recorded
		for {
			if _, err := os.Stat(filepath.Join(dir, "iteration-01.jsonl.gz")); err == nil {
				ph.printer.Store(true)
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), []string{"test", "--adb-port", fmt.Sprint(env.Port), "-s", env.Serial,
		"--iterations", "2", "--duration", "2s", "--command", "true", "--record-dir", dir, "--format", "json"},
		cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Build: buildinfo.Info{Version: "e2e"},
			Getenv: func(k string) string {
				if k == "FPSTOP_CONFIG" || k == "XDG_CONFIG_HOME" {
					return ""
				}
				return os.Getenv(k)
			}})
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !ph.printer.Load() {
		t.Fatal("the printer was never turned on: the test checks nothing")
	}
	for i := 1; i <= 2; i++ {
		r, err := record.Open(filepath.Join(dir, fmt.Sprintf("iteration-%02d.jsonl.gz", i)))
		if err != nil {
			t.Fatal(err)
		}
		if r.Header.Source != source.KindGfxinfo {
			t.Errorf("iteration %d read %q, want gfxinfo (the first iteration's choice)", i, r.Header.Source)
		}
		r.Close()
	}
	if !strings.Contains(errb.String(), "--source auto chose gfxinfo in iteration 1") {
		t.Errorf("stderr does not say the choice is kept: %s", errb.String())
	}
}
