package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/fpstop/fpstop/internal/testkit/junitcheck"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/buildinfo"
	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/metrics"
)

// The lab tests run two simulated phones each and do not run in parallel with the other
// end-to-end tests: on a two-core machine eight real-time phones at once starve them.

// labOut is what `fpstop --all-devices --headless --json` prints.
type labOut struct {
	Devices []labDev `json:"devices"`
	Summary struct {
		Devices      int      `json:"devices"`
		Frames       int64    `json:"frames"`
		Disconnected []string `json:"disconnected"`
		GateFailed   []string `json:"gate_failed"`
	} `json:"summary"`
}

type labDev struct {
	metrics.Report
	Connected bool     `json:"connected"`
	Notices   []string `json:"notices"`
}

func (o *labOut) device(t *testing.T, serial string) labDev {
	t.Helper()
	for _, d := range o.Devices {
		if d.Device != nil && d.Device.Serial == serial {
			return d
		}
	}
	t.Fatalf("no report for device %s among %d", serial, len(o.Devices))
	return labDev{}
}

// runCLI runs the command line in-process against the private adb server on port.
func runCLI(port int, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	args = append([]string{"--adb-port", fmt.Sprint(port)}, args...)
	code := cli.Main(context.Background(), args, cli.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "FPSTOP_CONFIG" || k == "XDG_CONFIG_HOME" || k == "ANDROID_SERIAL" {
				return ""
			}
			return os.Getenv(k)
		},
		Build: buildinfo.Info{Version: "e2e"},
	})
	return out.String(), errb.String(), code
}

// twoPhones starts two simulated phones behind one private adb server: the first at 60 Hz,
// the second at hz2.
func twoPhones(t *testing.T, scenario1, scenario2 string, hz2 float64) (*adbtest.Env, *adbtest.Extra) {
	t.Helper()
	ph1 := startPhone(t, 60, scenario1, 21, 0)
	ph2 := startPhone(t, hz2, scenario2, 22, 0)
	env := adbtest.Start(t, fakeadb.Config{Handler: ph1.handler, Model: "Pixel 7", Android: "14", SDK: 34})
	x := env.Connect(fakeadb.Config{Handler: ph2.handler, Model: "SM-G991B", Android: "13", SDK: 33})
	return env, x
}

func decodeLab(t *testing.T, out, errs string) labOut {
	t.Helper()
	var o labOut
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("not the multi-device JSON (%v): %s\nstderr: %s", err, out, errs)
	}
	return o
}

// TestLabAllDevicesEqualsSingle: two phones measured at once give, per phone, the report a
// single-device run of that phone gives over the same 20 s (fps within 1, frames within 2 % plus
// what the phone draws in the runs' start skew and one poll interval).
func TestLabAllDevicesEqualsSingle(t *testing.T) {
	t.Parallel()
	env, x := twoPhones(t, "janky", "stress", 90)
	type result struct {
		out, errs string
		code      int
	}
	runs := map[string][]string{
		"lab": {"--all-devices", "--headless", "--duration", "20s", "--json"},
		"one": {"-s", env.Serial, "--headless", "--duration", "20s", "--json"},
		"two": {"-s", x.Serial, "--headless", "--duration", "20s", "--json"},
	}
	res := map[string]result{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, args := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, errs, code := runCLI(env.Port, args...)
			mu.Lock()
			res[name] = result{out, errs, code}
			mu.Unlock()
		}()
	}
	wg.Wait()
	for name, r := range res {
		if r.code != cli.ExitOK {
			t.Fatalf("%s run: exit %d: %s", name, r.code, r.errs)
		}
	}
	lab := decodeLab(t, res["lab"].out, res["lab"].errs)
	if len(lab.Devices) != 2 || lab.Summary.Devices != 2 {
		t.Fatalf("%d reports (summary %d), want one per phone", len(lab.Devices), lab.Summary.Devices)
	}
	var sum int64
	for name, serial := range map[string]string{"one": env.Serial, "two": x.Serial} {
		var single metrics.Report
		if err := json.Unmarshal([]byte(res[name].out), &single); err != nil {
			t.Fatal(err)
		}
		got := lab.device(t, serial)
		sum += got.Frames
		if !got.Connected || single.Frames < 100 {
			t.Fatalf("%s: connected %v, single-device frames %d", serial, got.Connected, single.Frames)
		}
		// The three runs start at their own moments and poll on their own one-second schedules,
		// so their spans differ by up to a poll interval plus the difference in their durations:
		// allow the frames the phone draws in that much time on top of 2 %.
		rate := float64(single.Frames) / float64(single.DurationS)
		skewS := 1 + math.Abs(float64(got.DurationS-single.DurationS))
		if d := math.Abs(float64(got.Frames - single.Frames)); d > 0.02*float64(single.Frames)+rate*skewS {
			t.Errorf("%s: %d frames in the lab run (%.2f s), %d alone (%.2f s): more than 2 %% + %.1f s of frames apart",
				serial, got.Frames, float64(got.DurationS), single.Frames, float64(single.DurationS), skewS)
		}
		if got.FPS == nil || single.FPS == nil || math.Abs(float64(*got.FPS-*single.FPS)) > 1 {
			t.Errorf("%s: fps %v in the lab run, %v alone", serial, got.FPS, single.FPS)
		}
		if got.Device.Model != single.Device.Model {
			t.Errorf("%s: model %q, alone %q", serial, got.Device.Model, single.Device.Model)
		}
		t.Logf("%s: lab %d frames %.2f fps; alone %d frames %.2f fps", serial, got.Frames, float64(*got.FPS), single.Frames, float64(*single.FPS))
	}
	if lab.Summary.Frames != sum {
		t.Errorf("summary frames %d, devices add up to %d", lab.Summary.Frames, sum)
	}
	// A device named with -s that is not there is exit 3, with several devices as with one.
	if _, errs, code := runCLI(env.Port, "-s", env.Serial, "-s", "127.0.0.1:1", "--headless", "--duration", "2s"); code != cli.ExitRuntime || !strings.Contains(errs, "127.0.0.1:1") {
		t.Errorf("a missing named device: exit %d, %q; want 3 naming it", code, errs)
	}
}

// TestLabUnplug: one of two phones is unplugged mid-run; its report says so and keeps what was
// measured, while the other phone is measured to the end.
func TestLabUnplug(t *testing.T) {
	t.Parallel()
	// Both phones draw alike, so the one measured to the end has several times the frames of
	// the one unplugged early.
	env, x := twoPhones(t, "stress", "stress", 60)
	type result struct {
		out, errs string
		code      int
	}
	done := make(chan result, 1)
	go func() {
		out, errs, code := runCLI(env.Port, "--all-devices", "--headless", "--duration", "20s", "--json")
		done <- result{out, errs, code}
	}()
	waitUntil(t, "fpstop to poll the second phone", 15*time.Second, func() bool {
		n := 0
		for _, c := range x.Fake.Commands() {
			if strings.HasPrefix(c, "dumpsys gfxinfo") {
				n++
			}
		}
		return n >= 4
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := x.Unplug(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.code != cli.ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.errs)
	}
	lab := decodeLab(t, r.out, r.errs)
	gone, stayed := lab.device(t, x.Serial), lab.device(t, env.Serial)
	if gone.Connected || !strings.Contains(strings.Join(gone.Notices, "\n"), "disconnected") {
		t.Errorf("unplugged phone: connected %v, notices %q", gone.Connected, gone.Notices)
	}
	if len(lab.Summary.Disconnected) != 1 || lab.Summary.Disconnected[0] != x.Serial {
		t.Errorf("summary disconnected %v, want [%s]", lab.Summary.Disconnected, x.Serial)
	}
	if gone.Frames == 0 {
		t.Errorf("the unplugged phone's frames before the unplug were lost")
	}
	if !stayed.Connected || float64(stayed.DurationS) < 19 || stayed.Frames <= 2*gone.Frames {
		t.Errorf("the other phone: connected %v, %.1f s, %d frames (unplugged one: %d)", stayed.Connected,
			float64(stayed.DurationS), stayed.Frames, gone.Frames)
	}
	if !strings.Contains(r.errs, "disconnected") {
		t.Errorf("no notice on stderr: %q", r.errs)
	}
	t.Logf("unplugged phone: %d frames; the other: %d; notices %q", gone.Frames, stayed.Frames, gone.Notices)
}

// TestLabPrometheus: a real Prometheus scrapes a two-phone fpstop; fpstop_frames_total grows for
// both phones and every query of the Grafana dashboard (docs/grafana/fpstop.json) returns data.
func TestLabPrometheus(t *testing.T) {
	t.Parallel() // waits on real time mostly: overlapped with the other parallel tests
	bin := findPrometheus(t)
	env, x := twoPhones(t, "janky", "stress", 90)
	addr := freeAddr(t)
	prom := startPrometheus(t, bin, addr)
	done := make(chan string, 1)
	go func() {
		_, errs, code := runCLI(env.Port, "--all-devices", "--headless", "--duration", "25s", "--metrics-listen", addr)
		done <- fmt.Sprintf("exit %d: %s", code, errs)
	}()
	frames := func() map[string]float64 {
		out := map[string]float64{}
		for _, s := range prom.query(t, `sum by (serial) (fpstop_frames_total{job="fpstop"})`) {
			out[s.Metric["serial"]] = s.value()
		}
		return out
	}
	var first map[string]float64
	waitUntil(t, "Prometheus to have scraped both phones", 20*time.Second, func() bool {
		first = frames()
		return first[env.Serial] > 0 && first[x.Serial] > 0
	})
	var later map[string]float64
	waitUntil(t, "fpstop_frames_total to grow for both phones", 15*time.Second, func() bool {
		later = frames()
		return later[env.Serial] > first[env.Serial] && later[x.Serial] > first[x.Serial]
	})
	time.Sleep(6 * time.Second) // rate() over the dashboard's window needs a few scrapes
	for _, q := range dashboardQueries(t) {
		res := prom.query(t, q)
		serials := map[string]bool{}
		for _, s := range res {
			serials[s.Metric["serial"]] = true
		}
		if len(res) == 0 {
			t.Errorf("dashboard query returned no data: %s", q)
		} else if !serials[""] && (!serials[env.Serial] || !serials[x.Serial]) {
			t.Errorf("dashboard query %s: series for %v, want both phones", q, serials)
		}
	}
	if r := <-done; !strings.HasPrefix(r, "exit 0") {
		t.Errorf("fpstop: %s", r)
	}
}

// TestLabJUnit: --junit with several devices writes one testsuite per device, each with its
// gates as testcases (docs/ci.md), and the file passes the JUnit schema checks.
func TestLabJUnit(t *testing.T) {
	t.Parallel()
	env, x := twoPhones(t, "smooth", "stress", 90)
	xml := filepath.Join(t.TempDir(), "junit.xml")
	_, errs, code := runCLI(env.Port, "--all-devices", "--headless", "--duration", "3s", "--fail-under-fps", "1000", "--max-jank-pct", "100", "--junit", xml)
	if code != cli.ExitGate {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(xml)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := junitcheck.Check(f)
	if err != nil {
		t.Fatal(err)
	}
	suites := map[string][]junitcheck.ParsedCase{}
	for _, c := range p.Cases {
		suites[c.Suite] = append(suites[c.Suite], c)
	}
	for _, serial := range []string{env.Serial, x.Serial} {
		var cs []junitcheck.ParsedCase
		for name, c := range suites {
			if strings.Contains(name, serial) {
				cs = c
			}
		}
		if len(cs) != 2 {
			t.Errorf("device %s: testcases %+v, want its two gates (suites %v)", serial, cs, p.Cases)
			continue
		}
		for _, c := range cs {
			if failed := strings.HasPrefix(c.Name, "fail-under-fps"); c.Failed != failed || !strings.Contains(c.Class, serial) {
				t.Errorf("device %s: %+v", serial, c)
			}
		}
	}
	if len(suites) != 2 {
		t.Errorf("%d testsuites, want one per device", len(suites))
	}
}
