package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/metrics"
)

// topts is Options with the Session given as funcs, as the tests build it; a nil func is a
// feature the session lacks (no funcs at all: no session).
type topts struct {
	Options
	Snapshots func() *metrics.Snapshot
	OnClear   func()
	OnRecord  func(start bool) (string, error)
	Recording func() (bool, string, time.Time, error)
	Devices   func(ctx context.Context) ([]DeviceItem, error)
	Apps      func(ctx context.Context, serial string) ([]AppItem, error)
	OnPick    func(serial, pkg string) tea.Cmd
}

// build is the Options with a Session that is a Recorder when OnRecord is set and a
// DeviceSwitcher when Devices is set.
func (o topts) build() Options {
	opts := o.Options
	if o.Snapshots == nil && o.OnClear == nil && o.OnRecord == nil && o.Devices == nil {
		return opts
	}
	base := fakeBase{o}
	switch {
	case o.OnRecord != nil && o.Devices != nil:
		opts.Session = struct {
			fakeBase
			fakeRec
			fakeDev
		}{base, fakeRec{o}, fakeDev{o}}
	case o.OnRecord != nil:
		opts.Session = struct {
			fakeBase
			fakeRec
		}{base, fakeRec{o}}
	case o.Devices != nil:
		opts.Session = struct {
			fakeBase
			fakeDev
		}{base, fakeDev{o}}
	default:
		opts.Session = base
	}
	return opts
}

type fakeBase struct{ o topts }

func (f fakeBase) Latest() *metrics.Snapshot {
	if f.o.Snapshots == nil {
		return nil
	}
	return f.o.Snapshots()
}

func (f fakeBase) Clear() {
	if f.o.OnClear != nil {
		f.o.OnClear()
	}
}

type fakeRec struct{ o topts }

func (f fakeRec) StartRecording() (string, error) { return f.o.OnRecord(true) }
func (f fakeRec) StopRecording() (string, error)  { return f.o.OnRecord(false) }
func (f fakeRec) RecordingStatus() RecordingStatus {
	if f.o.Recording == nil {
		return RecordingStatus{}
	}
	a, p, s, err := f.o.Recording()
	return RecordingStatus{Active: a, Path: p, Since: s, Err: err}
}

type fakeDev struct{ o topts }

func (f fakeDev) Devices(ctx context.Context) ([]DeviceItem, error) { return f.o.Devices(ctx) }
func (f fakeDev) Apps(ctx context.Context, serial string) ([]AppItem, error) {
	if f.o.Apps == nil {
		return nil, nil
	}
	return f.o.Apps(ctx, serial)
}
func (f fakeDev) Switch(_ context.Context, serial, pkg string) (string, error) {
	if f.o.OnPick != nil {
		f.o.OnPick(serial, pkg)
	}
	return pkg + " on " + serial, nil
}
