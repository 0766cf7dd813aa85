package device

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Device states as adb prints them.
const (
	StateDevice       = "device"
	StateOffline      = "offline"
	StateUnauthorized = "unauthorized"
	StateAuthorizing  = "authorizing"
	StateConnecting   = "connecting"
	StateNoPerms      = "no permissions"
)

// knownStates are the connection states adb prints (connection_state_name in adb's sources);
// "no permissions …" is matched by prefix.
var knownStates = map[string]bool{
	"device": true, "offline": true, "unauthorized": true, "authorizing": true,
	"connecting": true, "bootloader": true, "recovery": true, "rescue": true,
	"sideload": true, "host": true, "unknown": true, "detached": true, "no device": true,
}

// Info describes one device as the adb server lists it, plus its Android version for online
// devices.
type Info struct {
	Serial      string `json:"serial"`
	State       string `json:"state"` // "device" (online), "unauthorized", "offline", ...
	Model       string `json:"model,omitempty"`
	Product     string `json:"product,omitempty"`
	Device      string `json:"device,omitempty"`
	USB         string `json:"usb,omitempty"`
	TransportID int64  `json:"transport_id,omitempty"`
	Android     string `json:"android,omitempty"` // ro.build.version.release, online devices only
	SDK         int    `json:"sdk,omitempty"`     // ro.build.version.sdk, online devices only
}

// Online reports whether adb can run commands on the device (state "device").
func (i Info) Online() bool { return i.State == StateDevice }

// Help says what to do about a device state that prevents using it ("" for an online device
// and for states with nothing useful to say).
func Help(state string) string {
	switch {
	case state == StateUnauthorized:
		return "accept the RSA prompt (\"Allow USB debugging?\") on the phone; if no prompt shows, " +
			"unplug and replug it, or run `adb kill-server` if stuck"
	case state == StateOffline:
		return "the device is not responding: unlock it, unplug and replug the cable (or reconnect " +
			"adb over Wi-Fi); `adb kill-server` if it stays offline"
	case state == StateAuthorizing, state == StateConnecting:
		return "adb is still connecting: wait a few seconds"
	case strings.HasPrefix(state, StateNoPerms):
		return "this user cannot open the USB device: add a udev rule for it (Debian: `apt install android-sdk-platform-tools-common`) and replug"
	case state == "bootloader", state == "recovery", state == "sideload", state == "rescue":
		return "the device is in " + state + " mode: boot it into Android"
	}
	return ""
}

// Devices lists every device the server knows (host:devices-l), whatever its state, and reads
// Android's version and SDK level (getprop) from the online ones — once per device connection:
// they never change while it lasts, and a device lab's listing every few seconds would ask each
// phone three times each time. A device whose getprop fails is still listed, without version.
func (c *Client) Devices(ctx context.Context) ([]Info, error) {
	infos, err := c.list(ctx)
	if err != nil {
		return nil, err
	}
	c.fillVersions(ctx, infos)
	return infos, nil
}

// factCache holds each online device's model, release and SDK, by serial and transport id (a
// reconnection gets a new transport id, so its facts are read again).
type factCache struct {
	mu sync.Mutex
	m  map[string]Info
}

// fillVersions fills the online devices of infos with their model, release and SDK, from the
// cache or getprop; devices no longer online leave the cache.
func (c *Client) fillVersions(ctx context.Context, infos []Info) {
	if c.facts == nil { // a Client made without Connect: no cache
		for i := range infos {
			if infos[i].Online() {
				c.fillVersion(ctx, &infos[i])
			}
		}
		return
	}
	seen := map[string]bool{}
	for i := range infos {
		in := &infos[i]
		if !in.Online() {
			continue
		}
		key := in.Serial + "\x00" + strconv.FormatInt(in.TransportID, 10)
		seen[key] = true
		c.facts.mu.Lock()
		v, ok := c.facts.m[key]
		c.facts.mu.Unlock()
		if ok {
			in.Android, in.SDK, in.Model = v.Android, v.SDK, v.Model
			continue
		}
		c.fillVersion(ctx, in)
		if in.Android != "" || in.SDK != 0 {
			c.facts.mu.Lock()
			c.facts.m[key] = *in
			c.facts.mu.Unlock()
		}
	}
	c.facts.mu.Lock()
	defer c.facts.mu.Unlock()
	for k := range c.facts.m {
		if !seen[k] {
			delete(c.facts.m, k)
		}
	}
}

// list asks host:devices-l, without getprop.
func (c *Client) list(ctx context.Context) ([]Info, error) {
	s, err := c.query(ctx, "host:devices-l")
	if err != nil {
		return nil, fmt.Errorf("listing devices: %w", err)
	}
	return ParseDevices(s), nil
}

// versionTimeout bounds the getprop calls of a device listing, so one wedged device cannot hold
// up the list for long.
const versionTimeout = 5 * time.Second

// fillVersion reads ro.build.version.release and ro.build.version.sdk, and the model's real
// name (ro.product.model: `adb devices -l` turns its spaces into '_').
func (c *Client) fillVersion(ctx context.Context, info *Info) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	if v, err := c.Getprop(ctx, info.Serial, "ro.product.model"); err == nil && v != "" {
		info.Model = v
	}
	if v, err := c.Getprop(ctx, info.Serial, "ro.build.version.release"); err == nil {
		info.Android = v
	}
	if v, err := c.Getprop(ctx, info.Serial, "ro.build.version.sdk"); err == nil {
		if n, err := strconv.Atoi(v); err == nil {
			info.SDK = n
		}
	}
}

// ParseDevices reads a device list: the server's host:devices-l answer or the text of
// `adb devices [-l]`, tolerating what the adb client prints around it (the "List of devices
// attached" header, "* daemon started successfully", version-mismatch and loader warnings,
// blank lines). A line is a device when its state is one adb prints.
func ParseDevices(text string) []Info {
	var out []Info
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if info, ok := parseDeviceLine(sc.Text()); ok {
			out = append(out, info)
		}
	}
	return out
}

// attrKeys are the key:value fields of `adb devices -l`.
var attrKeys = map[string]bool{"usb": true, "product": true, "model": true, "device": true, "transport_id": true}

func parseDeviceLine(line string) (Info, bool) {
	line = strings.TrimRight(line, "\r")
	fields := strings.Fields(line)
	if len(fields) < 2 || strings.HasPrefix(line, "*") || strings.HasPrefix(line, " ") {
		return Info{}, false
	}
	info := Info{Serial: fields[0]}
	var state []string
	i := 1
	for ; i < len(fields); i++ {
		if k, _, ok := strings.Cut(fields[i], ":"); ok && attrKeys[k] {
			break
		}
		state = append(state, fields[i])
	}
	info.State = strings.Join(state, " ")
	if !knownStates[info.State] && !strings.HasPrefix(info.State, StateNoPerms) {
		return Info{}, false
	}
	for ; i < len(fields); i++ {
		k, v, _ := strings.Cut(fields[i], ":")
		switch k {
		case "usb":
			info.USB = v
		case "product":
			info.Product = v
		case "model":
			info.Model = v
		case "device":
			info.Device = v
		case "transport_id":
			info.TransportID, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return info, true
}

// DefaultSerial is the serial to use: the -s/--serial flag when given, else $ANDROID_SERIAL
// (as adb does), else "".
func DefaultSerial(flag string) string {
	if flag != "" {
		return flag
	}
	return strings.TrimSpace(os.Getenv("ANDROID_SERIAL"))
}

// Select picks the device to use: the one whose serial is exactly serial when given (it must
// be online); otherwise the only online device. Several online devices without a serial is an
// error listing their serials (wrapping ErrSeveralDevices); no online device is an error
// wrapping ErrNoDevice that says what is wrong with the others, if any.
func Select(infos []Info, serial string) (Info, error) {
	if serial != "" {
		for _, in := range infos {
			if in.Serial != serial {
				continue
			}
			if !in.Online() {
				return in, fmt.Errorf("device %s is %s: %s", serial, in.State, helpOr(in.State))
			}
			return in, nil
		}
		if len(infos) == 0 {
			return Info{}, fmt.Errorf("device %s not found: %w", serial, ErrNoDevice)
		}
		return Info{}, fmt.Errorf("device %s not found (connected: %s): %w", serial, serials(infos), ErrDeviceNotFound)
	}
	var online []Info
	for _, in := range infos {
		if in.Online() {
			online = append(online, in)
		}
	}
	switch {
	case len(online) == 1:
		return online[0], nil
	case len(online) > 1:
		return Info{}, fmt.Errorf("%w (%s): choose one with -s/--serial or $ANDROID_SERIAL", ErrSeveralDevices, serials(online))
	case len(infos) > 0:
		var why []string
		for _, in := range infos {
			why = append(why, fmt.Sprintf("%s is %s: %s", in.Serial, in.State, helpOr(in.State)))
		}
		return Info{}, &noDeviceError{msg: "no usable Android device: " + strings.Join(why, "; ")}
	}
	return Info{}, fmt.Errorf("%w: plug in a phone with USB debugging enabled (or `adb connect HOST:PORT`)", ErrNoDevice)
}

// noDeviceError explains why no device can be used; errors.Is matches ErrNoDevice.
type noDeviceError struct{ msg string }

func (e *noDeviceError) Error() string { return e.msg }

func (e *noDeviceError) Unwrap() error { return ErrNoDevice }

func helpOr(state string) string {
	if h := Help(state); h != "" {
		return h
	}
	return "not usable in this state"
}

func serials(infos []Info) string {
	s := make([]string, len(infos))
	for i, in := range infos {
		s[i] = in.Serial
	}
	return strings.Join(s, ", ")
}
