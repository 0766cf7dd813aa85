package device

import (
	"context"
	"slices"
	"time"
)

// DefaultWatchInterval is how often Watch asks the server when every is zero: hot-plugged
// devices show up (and unplugged ones go) within about a second.
const DefaultWatchInterval = time.Second

// Update is the device list as Watch last saw it.
type Update struct {
	Devices []Info // every device the server lists, with Android/SDK for online ones
	Err     error  // non-nil when the server could not be asked (Devices is then nil)
}

// Watch follows the device list for a device picker and for reconnecting: it sends the list at
// once, then again whenever it changes (a device plugged, unplugged, authorized, gone offline;
// the server stopping or coming back), asking the server every `every` (DefaultWatchInterval
// when zero). Android versions are read once per device connection, not on every poll. The
// channel is closed when ctx ends; a slow reader only ever misses intermediate lists.
func Watch(ctx context.Context, c *Client, every time.Duration) <-chan Update {
	if every <= 0 {
		every = DefaultWatchInterval
	}
	ch := make(chan Update, 1)
	go func() {
		defer close(ch)
		var last *Update
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			u := poll(ctx, c)
			if ctx.Err() != nil {
				return
			}
			if last == nil || !sameUpdate(*last, u) {
				// Replace an unread update rather than block: the reader wants the latest.
				select {
				case <-ch:
				default:
				}
				ch <- u
				last = &u
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return ch
}

func poll(ctx context.Context, c *Client) Update {
	infos, err := c.Devices(ctx)
	if err != nil {
		return Update{Err: err}
	}
	return Update{Devices: infos}
}

func sameUpdate(a, b Update) bool {
	if (a.Err == nil) != (b.Err == nil) {
		return false
	}
	if a.Err != nil {
		return a.Err.Error() == b.Err.Error()
	}
	return slices.Equal(a.Devices, b.Devices)
}
