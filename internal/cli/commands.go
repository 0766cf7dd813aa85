package cli

import (
	"context"
	"fmt"
	"time"

	mcobra "github.com/muesli/mango-cobra"
	"github.com/muesli/roff"
	"github.com/spf13/cobra"
)

// extraCommands are the subcommands besides the dashboard (DESIGN §7).
func (a *app) extraCommands() []*cobra.Command {
	return []*cobra.Command{a.devicesCmd(), a.replayCmd(), a.reportCmd(), a.exportCmd(), a.infoCmd(), a.manCmd(),
		a.compareCmd(), a.testCmd(), a.mcpCmd()}
}

func (a *app) devicesCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "devices",
		Short: "list the devices the adb server sees (serial, state, model, Android version)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), 15*time.Second)
			defer cancel()
			cl, err := a.adbClient(ctx)
			if err != nil {
				return err
			}
			infos, err := cl.Devices(ctx)
			if err != nil {
				return runtimeErr(err)
			}
			return writeDevices(cmd.OutOrStdout(), infos, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	c.Flags().StringVar(&a.opts.AdbHost, "adb-host", "", "adb server host")
	c.Flags().IntVar(&a.opts.AdbPort, "adb-port", 0, "adb server port")
	return c
}

func (a *app) manCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "man",
		Short:  "print the man page (roff)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			page, err := mcobra.NewManPage(1, cmd.Root())
			if err != nil {
				return runtimeErr(err)
			}
			page = page.WithSection("Exit status", "0 success; 1 a gate failed (a run with no frames fails every gate); 2 usage error; 3 runtime error (no device, adb failure, unreadable input).")
			page = page.WithSection("Files", "Config: $FPSTOP_CONFIG, else $XDG_CONFIG_HOME/fpstop/config.yaml, else the user config directory. Log: the user cache directory, fpstop/fpstop.log.")
			_, err = fmt.Fprint(cmd.OutOrStdout(), page.Build(roff.NewDocument()))
			return err
		},
	}
}
