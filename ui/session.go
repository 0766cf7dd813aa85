package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/metrics"
)

// Session is what the dashboard shows and steers: the live session (internal/session, through
// the CLI). The dashboard calls it only inside tea.Cmds, never in Update or View. A Session
// may also be a Recorder and a DeviceSwitcher; the keys of what it is not are disabled (with
// a notice when pressed).
type Session interface {
	// Latest returns the newest snapshot (nil: nothing yet).
	Latest() *metrics.Snapshot
	// Clear resets the statistics (`c`).
	Clear()
}

// Recorder is a Session that records (`r`).
type Recorder interface {
	// StartRecording starts a recording and returns the file it writes.
	StartRecording() (path string, err error)
	// StopRecording ends it and returns the file it wrote.
	StopRecording() (path string, err error)
	// RecordingStatus is read on every refresh.
	RecordingStatus() RecordingStatus
}

// RecordingSummarizer is a Recorder that describes the recording it saved last in one line
// starting with its full path ("/home/me/fpstop-….jsonl.gz: 42 s, 5012 frames, …"), shown in
// the notice line when `r` stops a recording.
type RecordingSummarizer interface {
	LastSaved() string
}

// RecordingStatus is the recorder's state: whether it is recording, where, since when, and
// its last write error.
type RecordingStatus struct {
	Active bool
	Path   string
	Since  time.Time
	Err    error
}

// DeviceSwitcher is a Session reading a device, which can switch devices and apps (`d`, `a`).
type DeviceSwitcher interface {
	// Devices lists adb devices for the device picker.
	Devices(ctx context.Context) ([]DeviceItem, error)
	// Apps lists a device's apps for the app picker, the foreground one marked.
	Apps(ctx context.Context, serial string) ([]AppItem, error)
	// Switch reads serial's app pkg ("" = its foreground app) from now on, with fresh
	// statistics, and says what it now reads.
	Switch(ctx context.Context, serial, pkg string) (reading string, err error)
}

// LayerSwitcher is a Session reading a device, which can measure another SurfaceFlinger layer
// of the app (`l`, the layer picker).
type LayerSwitcher interface {
	// SwitchLayer measures layer (a name from Snapshot.LayerChoices) from now on, with fresh
	// statistics, and says what it now reads.
	SwitchLayer(ctx context.Context, layer string) (reading string, err error)
}

// SourceSwitcher is a Session reading a device, which can read the same app through another
// source (`P`: Perfetto, and back). auto offers Perfetto rather than starting it: a tracing
// session is heavier on the phone and shared with other tools (docs/perfetto.md).
type SourceSwitcher interface {
	// SourceOffer is what `P` would switch to now; read on every refresh, inside its Cmd.
	SourceOffer() SourceOffer
	// SwitchSource reads the app through kind (a SourceOffer's Kind) from now on, with fresh
	// statistics, and says what it now reads. When kind cannot start (tracing busy, an old
	// phone) the running source stays and the error says why in one sentence.
	SwitchSource(ctx context.Context, kind string) (reading string, err error)
}

// SourceOffer is the other source a SourceSwitcher can read the app through: Kind is what
// SwitchSource is given ("" = nothing on offer: no `P` hint), Label names it on the `P` hint,
// and Text is the notice line that offers it (or says why the last switch was refused).
type SourceOffer struct{ Kind, Label, Text string }

// SwitchTimeout bounds DeviceSwitcher.Switch.
const SwitchTimeout = 15 * time.Second

// backend is the Session split into the features the dashboard offers; a nil func is a
// feature this session does not have.
type backend struct {
	latest func() *metrics.Snapshot
	clear  func()
	record func(start bool) (path, summary string, err error)
	status func() RecordingStatus
	devs   func(ctx context.Context) ([]DeviceItem, error)
	apps   func(ctx context.Context, serial string) ([]AppItem, error)
	pick   func(serial, pkg string) tea.Cmd
	layer  func(name string) tea.Cmd
	offer  func() SourceOffer
	source func(kind string) tea.Cmd
}

func newBackend(s Session) backend {
	var b backend
	if s == nil {
		return b
	}
	b.latest, b.clear = s.Latest, s.Clear
	if r, ok := s.(Recorder); ok {
		b.record = func(start bool) (string, string, error) {
			if start {
				p, err := r.StartRecording()
				return p, "", err
			}
			p, err := r.StopRecording()
			sum := ""
			if sm, ok := s.(RecordingSummarizer); ok && err == nil {
				sum = sm.LastSaved()
			}
			return p, sum, err
		}
		b.status = r.RecordingStatus
	}
	if d, ok := s.(DeviceSwitcher); ok {
		b.devs, b.apps = d.Devices, d.Apps
		b.pick = func(serial, pkg string) tea.Cmd {
			return func() tea.Msg {
				ctx, cancel := context.WithTimeout(context.Background(), SwitchTimeout)
				defer cancel()
				what, err := d.Switch(ctx, serial, pkg)
				if err != nil {
					return FlashMsg{Level: FlashErr, Text: err.Error()}
				}
				return switchedMsg{what: what}
			}
		}
	}
	if l, ok := s.(LayerSwitcher); ok {
		b.layer = func(name string) tea.Cmd {
			return func() tea.Msg {
				ctx, cancel := context.WithTimeout(context.Background(), SwitchTimeout)
				defer cancel()
				what, err := l.SwitchLayer(ctx, name)
				if err != nil {
					return FlashMsg{Level: FlashErr, Text: err.Error()}
				}
				return FlashMsg{Level: FlashInfo, Text: "now measuring " + what}
			}
		}
	}
	if sw, ok := s.(SourceSwitcher); ok {
		b.offer = sw.SourceOffer
		b.source = func(kind string) tea.Cmd {
			return func() tea.Msg {
				ctx, cancel := context.WithTimeout(context.Background(), SwitchTimeout)
				defer cancel()
				what, err := sw.SwitchSource(ctx, kind)
				return sourceSwitchedMsg{what: what, err: err, offer: sw.SourceOffer()}
			}
		}
	}
	return b
}

// switchedMsg says the dashboard now reads another device or app (what: "PKG on SERIAL").
type switchedMsg struct{ what string }
