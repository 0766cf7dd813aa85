package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/source/sim"
	"github.com/fpstop/fpstop/themes"
)

// completionTimeout bounds what a completion asks the adb server: a shell waits for it.
const completionTimeout = 2 * time.Second

// formats are each command's --format values, for completion.
var formats = map[string][]string{
	"report":  {"json", "md", "csv", "html"},
	"compare": {"text", "md", "json", "html"},
	"test":    {"text", "json"},
	"export":  {"json", "perfetto"},
}

// registerCompletions gives the shells' completion the values of the flags that have a known
// set: scenarios, sources, themes, formats, and the serials and packages of the connected
// devices (asked of a running adb server, never starting one).
func registerCompletions(root *cobra.Command, o *Options) {
	fixed := func(vals ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp)
	}
	var scen []string
	for _, s := range append(append([]string{}, sim.Scenarios...), sim.GameScenarios...) {
		if h := sim.ScenarioHelp[s]; h != "" {
			s += "\t" + h
		}
		scen = append(scen, s)
	}
	walk(root, func(c *cobra.Command) {
		set := func(name string, fn cobra.CompletionFunc) {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, fn)
			}
		}
		set("scenario", fixed(scen...))
		set("source", fixed("auto", "sim", "gfxinfo", "logcat", "gfxinfo+logcat", "surfaceflinger", "perfetto"))
		set("theme", fixed(themes.Names()...))
		if f, ok := formats[c.Name()]; ok {
			set("format", fixed(f...))
		}
		set("serial", o.completeSerials)
		set("package", o.completePackages)
	})
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// completionDevices is a client of a running adb server (the flags' address) and its devices,
// or a nil client when no server answers.
func (o *Options) completionDevices() (*device.Client, []device.Info, context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
	addr, err := device.ServerAddr(o.AdbHost, o.AdbPort)
	if err != nil {
		return nil, nil, ctx, cancel
	}
	cl, err := device.Connect(ctx, addr, device.Options{NoStartServer: true, Timeout: completionTimeout})
	if err != nil {
		return nil, nil, ctx, cancel
	}
	infos, err := cl.Devices(ctx)
	if err != nil {
		return nil, nil, ctx, cancel
	}
	return cl, infos, ctx, cancel
}

// completeSerials offers the online devices' serials, described by their model.
func (o *Options) completeSerials(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	cl, infos, _, cancel := o.completionDevices()
	defer cancel()
	if cl == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, d := range infos {
		if d.State == "device" {
			out = append(out, strings.TrimSpace(fmt.Sprintf("%s\t%s", d.Serial, d.Model)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completePackages offers the third-party packages of the device -s names (or the only one).
func (o *Options) completePackages(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	cl, infos, ctx, cancel := o.completionDevices()
	defer cancel()
	if cl == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	info, err := device.Select(infos, device.DefaultSerial(o.Serial)) // -s, else the only one
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	pkgs, err := cl.Packages(ctx, info.Serial)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return pkgs, cobra.ShellCompDirectiveNoFileComp
}
