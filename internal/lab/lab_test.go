package lab

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/metrics"
)

var infos = []device.Info{
	{Serial: "zz", State: device.StateDevice, Model: "Pixel 8"},
	{Serial: "aa", State: device.StateDevice, Model: "Pixel 6"},
	{Serial: "off", State: "offline"},
	{Serial: "auth", State: "unauthorized"},
}

// --all-devices starts with every online device, by serial; -s names devices that must be
// there and online (exit 3, as for one device).
func TestInitialDevices(t *testing.T) {
	all, err := (&Config{AllDevices: true}).initialDevices(infos)
	if err != nil || len(all) != 2 || all[0].Serial != "aa" || all[1].Serial != "zz" {
		t.Errorf("--all-devices: %v (%v), want aa, zz", all, err)
	}
	named, err := (&Config{Serials: []string{"zz", "aa"}}).initialDevices(infos)
	if err != nil || len(named) != 2 || named[0].Serial != "zz" {
		t.Errorf("-s zz -s aa: %v (%v), want in the order given", named, err)
	}
	for _, serials := range [][]string{{"aa", "off"}, {"aa", "gone"}} {
		if _, err := (&Config{Serials: serials}).initialDevices(infos); exit.Code(err) != exit.Runtime {
			t.Errorf("-s %v: %v, want exit 3", serials, err)
		}
	}
	_, err = (&Config{AllDevices: true}).initialDevices(infos[2:])
	if exit.Code(err) != exit.Runtime || !strings.Contains(err.Error(), "unauthorized") && !strings.Contains(err.Error(), "offline") {
		t.Errorf("no device online: %v, want exit 3 saying why", err)
	}
	if _, err := (&Config{AllDevices: true}).initialDevices(nil); !errors.Is(err, device.ErrNoDevice) {
		t.Errorf("no device: %v, want ErrNoDevice", err)
	}
}

// The text report has each device's summary, its notices and error, then the total.
func TestWriteLabText(t *testing.T) {
	fps, jank := metrics.R2(59.5), metrics.R2(2)
	msg := "device lost"
	out := labOutput{
		Devices: []labDeviceReport{
			{Report: &metrics.Report{Source: "gfxinfo", Frames: 100, FPS: &fps, Device: &metrics.DeviceReport{Serial: "aa", Model: "Pixel 6"}},
				Connected: true, Notices: []string{"+1.0s: connected again"}},
			{Report: &metrics.Report{Source: "gfxinfo", Device: &metrics.DeviceReport{Serial: "zz", Model: "Pixel 8"}}, Error: &msg},
		},
		Summary: labSummary{Devices: 2, Frames: 100, JankyFrames: 2, JankPct: &jank, FPSMin: &fps, FPSMax: &fps,
			Disconnected: []string{"zz"}, Warnings: []string{"OTLP pushes failed"}},
	}
	var b bytes.Buffer
	if err := writeLab(&b, &out, false); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"== aa (Pixel 6) · connected", "notice: +1.0s: connected again", "== zz (Pixel 8) · disconnected",
		"error: device lost", "== summary: 2 devices · frames 100 · janky 2 (2.00 %) · fps 59.50–59.50 · disconnected 1 · gates failed 0",
		"warning: OTLP pushes failed"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in:\n%s", want, s)
		}
	}
}
