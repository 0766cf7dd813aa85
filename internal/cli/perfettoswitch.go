package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/ui"
)

// The on-screen switch to Perfetto and back (`P`, ui.SourceSwitcher). auto does not start a
// tracing session by itself: on Android 12+, with an app that does not log its Looper
// messages, it offers one on the notice line, and the user takes it with one key
// (docs/perfetto.md says why).

// perfettoOfferText is auto's offer on the notice line.
const perfettoOfferText = "press P for Perfetto: each janky frame's work and blame"

// sourceState is what `P` switches to now; guarded, since the dashboard reads it on every
// refresh while a switch runs in another Cmd.
type sourceState struct {
	mu    sync.Mutex
	offer ui.SourceOffer
	busy  sync.Mutex // one switch at a time (P, d, a)
}

// perfettoOffer is the offer auto makes for op: Perfetto, when op is auto on Android 12+ and
// the app does not log its Looper messages; on an older phone nothing to switch to, but the
// notice line says why gfxinfo is all there is; none otherwise.
func perfettoOffer(op *opened) ui.SourceOffer {
	switch {
	case op.perfettoOffer:
		return ui.SourceOffer{Kind: "perfetto", Label: "perfetto", Text: perfettoOfferText}
	case op.kind == "" && op.note == "": // auto reading gfxinfo
		return ui.SourceOffer{Text: perfettoHint(op.device)}
	}
	return ui.SourceOffer{}
}

// SourceOffer implements ui.SourceSwitcher. Nothing is offered (or said) about Perfetto once
// auto's later looks found the app's Looper lines: auto then names the messages behind janky
// frames itself.
func (d *deviceScreen) SourceOffer() ui.SourceOffer {
	d.src.mu.Lock()
	defer d.src.mu.Unlock()
	if d.src.offer.Kind != "auto" && d.a.probes.cur.Load().Joined() {
		return ui.SourceOffer{}
	}
	return d.src.offer
}

func (d *deviceScreen) setOffer(o ui.SourceOffer) {
	d.src.mu.Lock()
	d.src.offer = o
	d.src.mu.Unlock()
}

// SwitchSource implements ui.SourceSwitcher: "perfetto" starts the first tracing session
// before the running source is stopped, so a phone that refuses it keeps its source (and the
// notice line says why); "auto" goes back, stopping the trace and removing its files at once
// (the session waits for the Perfetto source to end).
func (d *deviceScreen) SwitchSource(ctx context.Context, kind string) (string, error) {
	d.src.busy.Lock()
	defer d.src.busy.Unlock()
	s := d.s.Latest()
	if s == nil || s.Session.Package == "" || s.Session.Device.Serial == "" {
		return "", errors.New("no app is being read yet")
	}
	serial, pkg := s.Session.Device.Serial, s.Session.Package
	switch kind {
	case "perfetto":
		dop, err := d.a.devices().Open(ctx, "perfetto", serial, pkg)
		if err != nil {
			why := perfettoRefusal(err, string(s.Session.Source))
			d.setOffer(ui.SourceOffer{Kind: "perfetto", Label: "perfetto", Text: why + " · P retries"})
			return "", errors.New(why)
		}
		op := deviceOpened(dop)
		if err := d.s.SwitchDevice(d.ctx, op.src, op.device, "starting Perfetto…"); err != nil {
			return "", err
		}
		d.a.probes.cur.Store(nil) // auto's looks for Looper lines stopped with it
		d.setOffer(ui.SourceOffer{Kind: "auto", Label: "back to gfxinfo"})
		return pkg + " through Perfetto's FrameTimeline (P goes back to gfxinfo)", nil
	case "auto":
		dop, err := d.a.devices().Open(ctx, "auto", serial, pkg)
		if err != nil {
			return "", errors.New(oneSentence(err))
		}
		op := deviceOpened(dop)
		if err := d.show(op); err != nil {
			return "", err
		}
		return pkg + " through " + autoReads(op) + " (Perfetto stopped, its files removed)", nil
	}
	return "", fmt.Errorf("no source %q to switch to", kind)
}

// autoReads names what auto reads for op.
func autoReads(op *opened) string {
	if op.note != "" { // the app logs its Looper messages
		return "gfxinfo+logcat"
	}
	return "gfxinfo"
}

// perfettoRefusal is why a switch to Perfetto did not happen, in one line with no command
// text, and what the screen reads meanwhile.
func perfettoRefusal(err error, still string) string {
	var why string
	switch {
	case errors.Is(err, device.ErrPerfettoUnsupported):
		why = "Perfetto not started: FrameTimeline needs Android 12 or later"
	case errors.Is(err, device.ErrTracingBusy):
		why = "Perfetto not started: tracing is busy on the phone (another tool's session)"
	case errors.Is(err, device.ErrPerfettoRefused):
		why = "Perfetto not started: the phone's tracing service refused the session"
	case errors.Is(err, context.DeadlineExceeded):
		why = "Perfetto not started: the phone did not answer in time"
	default:
		why = "Perfetto not started: " + strings.TrimSuffix(oneSentence(err), ".")
	}
	switch still {
	case "":
		return why + " — the previous source stays"
	case string(source.KindPerfetto), string(source.KindPerfettoLogcat): // another app or phone picked while tracing
		return why + " — the previous trace goes on"
	}
	return why + " — still reading " + still
}
