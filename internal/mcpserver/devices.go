package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fpstop/fpstop/device"
)

// ListDevicesInput takes nothing.
type ListDevicesInput struct{}

// DeviceOut is one device the adb server lists.
type DeviceOut struct {
	Serial    string   `json:"serial"`
	State     string   `json:"state" jsonschema:"device (online), unauthorized, offline…"`
	Model     string   `json:"model"`
	Android   string   `json:"android" jsonschema:"Android version (online devices)"`
	SDK       int      `json:"sdk" jsonschema:"API level (online devices; 0 when unknown)"`
	RefreshHz *float64 `json:"refresh_hz" jsonschema:"display refresh rate in Hz now (online devices; null when unknown)"`
	Help      string   `json:"help,omitempty" jsonschema:"what to do about a device that cannot be used"`
}

// ListDevicesOutput is list_devices' result.
type ListDevicesOutput struct {
	Summary string      `json:"summary"`
	Devices []DeviceOut `json:"devices"`
}

// ListAppsInput selects the device and filters the packages.
type ListAppsInput struct {
	Device string `json:"device,omitempty" jsonschema:"serial from list_devices; empty: the only device"`
	Filter string `json:"filter,omitempty" jsonschema:"only packages containing this text (case-insensitive)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many packages (default 100, at most 1000)"`
}

// ListAppsOutput is list_apps' result.
type ListAppsOutput struct {
	Summary            string   `json:"summary"`
	Device             string   `json:"device" jsonschema:"the serial listed"`
	ForegroundPackage  string   `json:"foreground_package" jsonschema:"the app on screen (empty when none could be read)"`
	ForegroundActivity string   `json:"foreground_activity"`
	Packages           []string `json:"packages" jsonschema:"installed third-party packages (pm list packages -3), sorted, filtered"`
	PackagesTotal      int      `json:"packages_total" jsonschema:"how many matched before the limit"`
}

func (s *server) addDeviceTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "list_devices", Title: "List Android devices",
		Description: "Lists the devices the adb server sees: serial, state, model, Android version and the display's refresh rate. Use a serial as device in the other tools.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.listDevices)
	mcp.AddTool(srv, &mcp.Tool{Name: "list_apps", Title: "List apps on a device",
		Description: "The device's foreground app and its installed third-party packages (filterable). Use a package as package in measure or start_session.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.listApps)
}

// client connects to the adb server, with an error that says how to get one.
func (s *server) client(ctx context.Context) (*device.Client, error) {
	addr, err := device.ServerAddr(s.o.AdbHost, s.o.AdbPort)
	if err != nil {
		return nil, err
	}
	cl, err := device.Connect(ctx, addr, device.Options{})
	if err != nil {
		return nil, fmt.Errorf("cannot reach the adb server at %s: %w.%s", addr, err, nextStep("no adb server"))
	}
	return cl, nil
}

// devices connects to the adb server and lists the devices it sees.
func (s *server) devices(ctx context.Context) (*device.Client, []device.Info, error) {
	cl, err := s.client(ctx)
	if err != nil {
		return nil, nil, err
	}
	infos, err := cl.Devices(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("listing devices: %w", err)
	}
	return cl, infos, nil
}

func (s *server) listDevices(ctx context.Context, _ *mcp.CallToolRequest, _ ListDevicesInput) (*mcp.CallToolResult, ListDevicesOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out := ListDevicesOutput{Devices: []DeviceOut{}}
	cl, infos, err := s.devices(ctx)
	if err != nil {
		return nil, out, err
	}
	online := 0
	for _, in := range infos {
		d := DeviceOut{Serial: in.Serial, State: in.State, Model: in.Model, Android: in.Android, SDK: in.SDK, Help: device.Help(in.State)}
		if in.Online() {
			online++
			if hz, err := cl.RefreshRate(ctx, in.Serial); err == nil && hz > 0 {
				d.RefreshHz = &hz
			}
		}
		out.Devices = append(out.Devices, d)
	}
	switch {
	case len(infos) == 0:
		out.Summary = "No Android device is connected. Plug in a phone with USB debugging on (or `adb connect HOST:PORT`), or measure the simulator with source \"sim\"."
	case online == 0:
		out.Summary = fmt.Sprintf("%d device(s) listed, none online: see each device's help.", len(infos))
	default:
		var names []string
		for _, d := range out.Devices {
			if d.State == device.StateDevice {
				n := d.Serial
				if d.Model != "" {
					n = fmt.Sprintf("%s (%s", d.Model, d.Serial)
					if d.Android != "" {
						n += ", Android " + d.Android
					}
					if d.RefreshHz != nil {
						n += fmt.Sprintf(", %s Hz", num(*d.RefreshHz))
					}
					n += ")"
				}
				names = append(names, n)
			}
		}
		out.Summary = fmt.Sprintf("%d device(s) online: %s.", online, strings.Join(names, "; "))
	}
	return textResult(out.Summary, out), out, nil
}

func (s *server) listApps(ctx context.Context, _ *mcp.CallToolRequest, in ListAppsInput) (*mcp.CallToolResult, ListAppsOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out := ListAppsOutput{Packages: []string{}}
	if err := validSerial(in.Device); err != nil {
		return nil, out, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 100
	}
	if limit > 1000 {
		return nil, out, fmt.Errorf("limit %d: want 1 to 1000", in.Limit)
	}
	cl, infos, err := s.devices(ctx)
	if err != nil {
		return nil, out, err
	}
	info, err := device.Select(infos, device.DefaultSerial(in.Device))
	if err != nil {
		return nil, out, fmt.Errorf("%w.%s", err, nextStep(err.Error()))
	}
	out.Device = info.Serial
	if pkg, act, err := cl.ForegroundApp(ctx, info.Serial); err == nil {
		out.ForegroundPackage, out.ForegroundActivity = pkg, act
	}
	pkgs, err := cl.Packages(ctx, info.Serial)
	if err != nil {
		return nil, out, fmt.Errorf("listing packages on %s: %w", info.Serial, err)
	}
	f := strings.ToLower(in.Filter)
	for _, p := range pkgs {
		if f == "" || strings.Contains(strings.ToLower(p), f) {
			out.PackagesTotal++
			if len(out.Packages) < limit {
				out.Packages = append(out.Packages, p)
			}
		}
	}
	fg := "no app could be read as on screen"
	if out.ForegroundPackage != "" {
		fg = "the app on screen is " + out.ForegroundPackage
	}
	out.Summary = fmt.Sprintf("On %s %s; %d installed third-party package(s) match", info.Serial, fg, out.PackagesTotal)
	if len(out.Packages) < out.PackagesTotal {
		out.Summary += fmt.Sprintf(" (the first %d listed)", len(out.Packages))
	}
	out.Summary += "."
	return textResult(out.Summary, out), out, nil
}

// validSerial refuses what cannot be a device serial before it reaches a command line.
func validSerial(s string) error {
	if strings.ContainsAny(s, "\x00\n\r=, ") || strings.HasPrefix(s, "-") {
		return fmt.Errorf("device %q is not a device serial: take one from list_devices", s)
	}
	return nil
}

// validPackage refuses what cannot be a package name before it reaches a command line.
func validPackage(p string) error {
	if p == "" {
		return nil
	}
	if err := device.ValidPackage(p); err != nil {
		return fmt.Errorf("package %q: %w; take one from list_apps", p, err)
	}
	return nil
}
