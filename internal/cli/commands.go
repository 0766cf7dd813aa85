package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	mcobra "github.com/muesli/mango-cobra"
	"github.com/muesli/roff"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func (a *app) devicesCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "devices",
		Short: "list the devices the adb server sees (serial, state, model, Android version)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), 15*time.Second)
			defer cancel()
			cl, err := a.devices().Client(ctx)
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

// manReady prepares the command tree for mango, which formats flag usages as printf formats
// ("92 % of" became "92 %!o(MISSING)f") and makes each line of a description a paragraph: usages
// get their % doubled and descriptions their lines joined (blank lines still part paragraphs).
// The man command prints the page and exits, so the tree is not needed as it was.
func manReady(c *cobra.Command) {
	fix := func(f *pflag.Flag) { f.Usage = strings.ReplaceAll(f.Usage, "%", "%%") }
	c.Flags().VisitAll(fix)
	c.PersistentFlags().VisitAll(fix)
	c.Long = unwrap(c.Long)
	for _, sub := range c.Commands() {
		manReady(sub)
	}
}

// unwrap joins a text's lines into paragraphs, one line each; blank lines part paragraphs, and
// lines of an indented block (examples) are kept.
func unwrap(s string) string {
	var out []string
	for _, para := range strings.Split(s, "\n\n") {
		lines := strings.Split(para, "\n")
		var b strings.Builder
		for i, l := range lines {
			switch {
			case i == 0:
			case strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t"):
				b.WriteString("\n")
			default:
				b.WriteString(" ")
			}
			b.WriteString(l)
		}
		out = append(out, b.String())
	}
	return strings.Join(out, "\n\n")
}

func manCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "man",
		Short:  "print the man page (roff)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			manReady(cmd.Root())
			page, err := mcobra.NewManPage(1, cmd.Root())
			if err != nil {
				return runtimeErr(err)
			}
			page = page.WithSection("Exit status", "0 success; 1 a gate failed (a run with no frames fails every gate); 2 usage error (an output file that exists without --force too); 3 runtime error (no device, adb failure, unreadable input, a device lost during the run and not back by its end).")
			page = page.WithSection("Files", "Config: $FPSTOP_CONFIG, else $XDG_CONFIG_HOME/fpstop/config.yaml, else the user config directory. Log: the user cache directory, fpstop/fpstop.log.")
			_, err = fmt.Fprint(cmd.OutOrStdout(), page.Build(roff.NewDocument()))
			return err
		},
	}
}
