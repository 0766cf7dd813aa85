package ui

import (
	"context"
	"sync/atomic"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestDevicePickerFollowsHotplug: while the picker is open it lists the devices again after
// each listing (every DevicePollInterval), so a device plugged in shows up; once it is closed,
// the polling stops.
func TestDevicePickerFollowsHotplug(t *testing.T) {
	var calls atomic.Int32
	devices := func(context.Context) ([]DeviceItem, error) {
		if calls.Add(1) == 1 {
			return nil, nil
		}
		return []DeviceItem{{Serial: "emulator-5554", Model: "sdk_gphone64", Android: "14", State: "device"}}, nil
	}
	m := New(topts{Devices: devices}.build())
	var tm tea.Model = m
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	tm, cmd := tm.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'d'}})
	// run the listing Cmd, then the poll the listing schedules (a tea.Tick: run it directly)
	msg := cmd()
	tm, cmd = tm.Update(msg)
	if cmd == nil {
		t.Fatal("an open picker must schedule the next listing")
	}
	poll := devicePollMsg{gen: tm.(Model).devs.gen}
	tm, cmd = tm.Update(poll)
	if cmd == nil {
		t.Fatal("the poll must list the devices again")
	}
	tm, _ = tm.Update(cmd())
	if got := tm.(Model).devs.items; len(got) != 1 || got[0].Serial != "emulator-5554" {
		t.Fatalf("the plugged device did not show up: %+v", got)
	}
	// closed: a pending poll does nothing
	tm, _ = tm.Update(closePickerMsg{})
	if _, cmd = tm.Update(devicePollMsg{gen: tm.(Model).devs.gen}); cmd != nil {
		t.Error("a closed picker must stop polling")
	}
	if calls.Load() != 2 {
		t.Errorf("%d listings, want 2", calls.Load())
	}
}
