package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// BenchmarkLab4Devices measures the real binary measuring four simulated phones at once
// (--all-devices, with the Prometheus endpoint on) for FPSTOP_LAB_BENCH_DURATION (default 10m):
// its CPU (utime+stime from /proc) per sampling period and its RSS, to show both stay flat.
// Run it with scripts/bench-lab.sh; `go test ./...` runs no benchmark. Linux only (/proc).
func BenchmarkLab4Devices(b *testing.B) {
	dur := 10 * time.Minute
	if v := os.Getenv("FPSTOP_LAB_BENCH_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("FPSTOP_LAB_BENCH_DURATION: %v", err)
		}
		dur = d
	}
	bin := binary(b)
	phones := []*phone{
		startPhone(b, 60, "stress", 31, 0), startPhone(b, 90, "janky", 32, 0),
		startPhone(b, 120, "stress", 33, 0), startPhone(b, 60, "demo", 34, 0),
	}
	env := adbtest.Start(b, fakeadb.Config{Handler: phones[0].handler, Model: "Pixel 7", Android: "14", SDK: 34})
	for i, ph := range phones[1:] {
		env.Connect(fakeadb.Config{Handler: ph.handler, Model: fmt.Sprintf("Phone %d", i+2), Android: "13", SDK: 33})
	}
	for i := 0; i < b.N; i++ {
		labBenchRun(b, bin, env.Port, dur, len(phones))
	}
}

func labBenchRun(b *testing.B, bin string, port int, dur time.Duration, devices int) {
	cmd, out, errb := startIsolated(b, bin, "--adb-port", strconv.Itoa(port), "--all-devices", "--headless", "--json",
		"--duration", dur.String(), "--metrics-listen", "127.0.0.1:0")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid := cmd.Process.Pid
	period := dur / 10
	hz := 100.0                 // USER_HZ: the kernel's unit for /proc/PID/stat times on Linux
	time.Sleep(5 * time.Second) // past start-up (device discovery, first polls)
	startTicks, _ := procTicks(pid)
	startAt := time.Now()
	prev, prevAt := startTicks, startAt
	b.Logf("%8s %14s %14s %9s", "t", "CPU % (core)", "per device %", "RSS MB")
	for {
		select {
		case err := <-done:
			b.Logf("fpstop ended: %v; stderr: %s", err, errb.String())
			var lab labOut
			if err := json.Unmarshal([]byte(out.String()), &lab); err != nil || len(lab.Devices) != devices {
				b.Fatalf("want a report for each of %d devices (%v): %s", devices, err, out.String())
			}
			for _, d := range lab.Devices {
				fps := math.NaN()
				if d.FPS != nil {
					fps = float64(*d.FPS)
				}
				b.Logf("%s (%s): %d frames in %d windows, fps %.2f, connected %v", d.Device.Serial, d.Device.Model, d.Frames, len(d.Windows), fps, d.Connected)
				if d.Frames == 0 {
					b.Errorf("device %s: no frames", d.Device.Serial)
				}
			}
			return
		case <-time.After(period):
		}
		ticks, err := procTicks(pid)
		if err != nil {
			continue // ended between the select and now
		}
		now := time.Now()
		cpu := 100 * float64(ticks-prev) / hz / now.Sub(prevAt).Seconds()
		rss := procRSSMB(pid)
		b.Logf("%8s %14.2f %14.2f %9.1f", now.Sub(startAt).Round(time.Second), cpu, cpu/float64(devices), rss)
		prev, prevAt = ticks, now
		if total := now.Sub(startAt).Seconds(); total > 0 {
			b.ReportMetric(100*float64(ticks-startTicks)/hz/total/float64(devices), "cpu%/device")
			b.ReportMetric(rss, "rss-MB")
		}
	}
}

// procTicks is utime+stime of pid in clock ticks.
func procTicks(pid int) (int64, error) {
	bs, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(bs)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from 3 (state) on
	u, _ := strconv.ParseInt(f[11], 10, 64)                  // field 14
	st, _ := strconv.ParseInt(f[12], 10, 64)                 // field 15
	return u + st, nil
}

// procRSSMB is pid's resident set in MB.
func procRSSMB(pid int) float64 {
	bs, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(bs), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return 0
}
