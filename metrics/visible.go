package metrics

import "github.com/fpstop/fpstop/source"

// The names a device sends (windows, processes, handlers, callbacks, threads) are shown with
// their bidirectional controls and zero-width characters escaped (source.Visible), on the
// screen and in every report. An event is copied only when one of its names needs it: the
// recording and the other readers of the event keep what the device sent.

func visibleMessage(m *source.Message) *source.Message {
	if !source.NeedsVisible(m.Handler) && !source.NeedsVisible(m.Callback) && !source.NeedsVisible(m.Thread) {
		return m
	}
	c := *m
	c.Handler, c.Callback, c.Thread = source.Visible(c.Handler), source.Visible(c.Callback), source.Visible(c.Thread)
	return &c
}

func visibleDispatch(d *source.Dispatch) *source.Dispatch {
	if !source.NeedsVisible(d.Handler) && !source.NeedsVisible(d.Callback) && !source.NeedsVisible(d.Thread) {
		return d
	}
	c := *d
	c.Handler, c.Callback, c.Thread = source.Visible(c.Handler), source.Visible(c.Callback), source.Visible(c.Thread)
	return &c
}

func visibleSlow(s *source.SlowLooper) *source.SlowLooper {
	if !source.NeedsVisible(s.Handler) && !source.NeedsVisible(s.Callback) && !source.NeedsVisible(s.Thread) &&
		!source.NeedsVisible(s.Text) {
		return s
	}
	c := *s
	c.Handler, c.Callback, c.Thread = source.Visible(c.Handler), source.Visible(c.Callback), source.Visible(c.Thread)
	c.Text = source.Visible(c.Text)
	return &c
}
