package ui

import (
	"context"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/themes"
)

func pickerStyles() *themes.Styles {
	th, _ := themes.Get(themes.Default)
	st := themes.NewStyles(th, true)
	return &st
}

// TestAppPickerEnterWhileLoading: enter pressed while the apps are still being listed (a slow
// phone, or `d ↓ enter enter` typed quickly) picks the first row — the foreground app — once
// the list arrives, instead of being lost and leaving the picker open on the old phone.
func TestAppPickerEnterWhileLoading(t *testing.T) {
	apps := func(_ context.Context, serial string) ([]AppItem, error) {
		return []AppItem{{Package: "com.other"}, {Package: "com.example.feed", Foreground: true, Running: true}}, nil
	}
	m := newAppPicker(pickerStyles(), apps).SetSize(80, 20)
	m, load := m.Load("phone-2")
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if _, got := m.take(); got != nil {
		t.Fatalf("enter on an empty, loading list picked something: %#v", *got)
	}
	m, _ = m.Update(load())
	m, got := m.take()
	if got == nil {
		t.Fatal("the list arrived after enter, and nothing was picked")
	}
	if want := (pickAppMsg{serial: "phone-2", pkg: "com.example.feed"}); *got != want {
		t.Fatalf("picked %#v, want %#v", *got, want)
	}
	// An enter while loading is forgotten by the next listing (another phone picked).
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	m, load = m.Load("phone-3")
	m, _ = m.Update(load())
	if _, got = m.take(); got != nil {
		t.Fatalf("a new listing picked by itself: %#v", *got)
	}
}

// TestDevicePickerCursorFollowsDevice: the open picker lists the devices again every second;
// when that listing comes back in another order or with a device more (hot-plug), the cursor
// stays on the device the user chose, so enter picks it and not whatever took its row.
func TestDevicePickerCursorFollowsDevice(t *testing.T) {
	lists := [][]DeviceItem{
		{{Serial: "A", State: "device"}, {Serial: "B", State: "device"}},
		{{Serial: "0", State: "device"}, {Serial: "A", State: "device"}, {Serial: "B", State: "device"}},
	}
	calls := 0
	devices := func(context.Context) ([]DeviceItem, error) {
		l := lists[min(calls, len(lists)-1)]
		calls++
		return l, nil
	}
	after := func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	m := newDevicePicker(pickerStyles(), devices, after).SetSize(80, 20)
	m, load := m.Load()
	m, _ = m.Update(load())
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyDown}) // on B
	m, load = m.Update(devicePollMsg{gen: m.gen})
	m, _ = m.Update(load())
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if _, got := m.take(); got != "B" {
		t.Fatalf("after the relisting enter picked %q, want B", got)
	}
}

// TestQuickSwitchKeys: `d ↓ enter enter` typed faster than the phone lists its apps still
// switches to the second phone's foreground app: the first enter opens the app picker in the
// same Update (a key right after it cannot reach the device picker again), the second is
// kept until the apps arrive.
func TestQuickSwitchKeys(t *testing.T) {
	var picked []string
	o := topts{
		Devices: func(context.Context) ([]DeviceItem, error) {
			return []DeviceItem{{Serial: "one", State: "device"}, {Serial: "two", State: "device"}}, nil
		},
		Apps: func(_ context.Context, serial string) ([]AppItem, error) {
			return []AppItem{{Package: "com.a"}, {Package: "com.fg." + serial, Foreground: true}}, nil
		},
		OnPick: func(serial, pkg string) tea.Cmd { picked = append(picked, pkg+" on "+serial); return nil },
	}
	o.Options.After = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	var tm tea.Model = New(o.build())
	tm, _ = tm.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	tm, cmd := tm.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'d'}})
	tm, _ = tm.Update(cmd()) // the device list
	tm, _ = tm.Update(tea.KeyMsg{Type: tea.KeyDown})
	tm, load := tm.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if tm.(Model).overlay != overlayApps {
		t.Fatalf("enter on a device did not open the app picker at once (overlay %v)", tm.(Model).overlay)
	}
	tm, _ = tm.Update(tea.KeyMsg{Type: tea.KeyEnter}) // before the apps are listed
	var msgs []tea.Msg
	collect(load, &msgs)
	for _, msg := range msgs {
		var c tea.Cmd
		tm, c = tm.Update(msg)
		var more []tea.Msg
		collect(c, &more)
		for _, m2 := range more {
			tm, _ = tm.Update(m2)
		}
	}
	if tm.(Model).overlay != overlayNone {
		t.Errorf("the app picker is still open (overlay %v)", tm.(Model).overlay)
	}
	if len(picked) != 1 || picked[0] != "com.fg.two on two" {
		t.Fatalf("switched to %q, want the second phone's foreground app once", picked)
	}
}

// collect runs cmd and the Cmds of the batches it returns, keeping the messages.
func collect(cmd tea.Cmd, out *[]tea.Msg) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			collect(c, out)
		}
	default:
		*out = append(*out, msg)
	}
}

// TestDevicePickerEnterWhileLoading: with several phones the picker opens by itself and the
// status line already names them; an enter typed before the picker has listed them picks the
// first usable phone once the list arrives (it was dropped: the picker stayed open) and opens
// its app picker. An offline first row is never picked that way.
func TestDevicePickerEnterWhileLoading(t *testing.T) {
	for _, tc := range []struct {
		name    string
		devices []DeviceItem
		want    overlay
	}{
		{"usable", []DeviceItem{{Serial: "one", State: "device"}, {Serial: "two", State: "device"}}, overlayApps},
		{"offline first", []DeviceItem{{Serial: "one", State: "offline"}, {Serial: "two", State: "device"}}, overlayDevices},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := topts{
				Devices: func(context.Context) ([]DeviceItem, error) { return tc.devices, nil },
				Apps: func(context.Context, string) ([]AppItem, error) {
					return []AppItem{{Package: "com.example.feed", Foreground: true}}, nil
				},
			}
			o.Options.After = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
			var tm tea.Model = New(o.build())
			tm, _ = tm.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			tm, load := tm.Update(openDevicePickerMsg{})
			tm, _ = tm.Update(tea.KeyMsg{Type: tea.KeyEnter}) // before the devices are listed
			if got := tm.(Model).overlay; got != overlayDevices {
				t.Fatalf("enter on a loading picker changed the overlay to %v", got)
			}
			tm, _ = tm.Update(load())
			if got := tm.(Model).overlay; got != tc.want {
				t.Fatalf("after the list arrived the overlay is %v, want %v", got, tc.want)
			}
		})
	}
}
