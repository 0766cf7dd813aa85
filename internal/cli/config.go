package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/config"
	"github.com/fpstop/fpstop/internal/logging"
	"github.com/fpstop/fpstop/themes"
)

// loadConfig applies the config file to the command's flags (flags given on the command line
// win). It runs after parsing and before validation.
func (a *app) loadConfig(ctx context.Context, fs *pflag.FlagSet) error {
	path, _, err := config.Resolve(a.opts.Config, a.env.Getenv)
	if err != nil {
		return usageErr("%v", err)
	}
	a.configPath = path
	if path == "" {
		return nil
	}
	f, err := config.Load(ctx, path)
	if err != nil {
		if ctx.Err() != nil {
			return runtimeErr(err) // interrupted while reading it
		}
		return usageErr("%v", err)
	}
	// A subcommand (report, compare, test) takes the keys it has flags for; the others are the
	// dashboard's (theme, refresh, …): checked against the main command's flags and otherwise
	// ignored, so one config file serves every command.
	mine, others := f, config.File{Path: f.Path, Found: f.Found}
	mine.Entries = nil
	for _, e := range f.Entries {
		if fl := fs.Lookup(e.Key); fl != nil && !fl.Hidden {
			mine.Entries = append(mine.Entries, e)
		} else {
			others.Entries = append(others.Entries, e)
		}
	}
	if len(others.Entries) > 0 {
		dash := pflag.NewFlagSet("fpstop", pflag.ContinueOnError)
		new(Options).bind(dash)
		if err := config.Apply(dash, others); err != nil {
			return usageErr("%v", err)
		}
	}
	if err := config.Apply(fs, mine); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// flagSet reports whether a flag was given on the command line or set from the config file.
func flagSet(fs *pflag.FlagSet, name string) bool {
	fl := fs.Lookup(name)
	if fl == nil {
		return false
	}
	if fl.Changed {
		return true
	}
	_, fromFile := fl.Annotations[config.Annotation]
	return fromFile
}

// userThemeDir is where user theme files are looked up.
func (a *app) userThemeDir() string {
	if a.configPath == "" {
		if p, _, err := config.Resolve(a.opts.Config, a.env.Getenv); err == nil {
			a.configPath = p
		}
	}
	return config.ThemeDir(a.configPath)
}

func (a *app) infoCmd() *cobra.Command {
	var defaultConfig bool
	c := &cobra.Command{
		Use:   "info",
		Short: "where everything is: config, log and theme paths, colour profile, what each source asks of the phone, adb server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			if defaultConfig {
				_, err := fmt.Fprint(w, config.DefaultFile(cmd.Root().Flags()))
				return err
			}
			fmt.Fprintf(w, "version:       %s\n", a.env.Build.String())
			path, from, err := config.Resolve(a.opts.Config, a.env.Getenv)
			switch {
			case err != nil:
				fmt.Fprintf(w, "config:        error: %v\n", err)
			case path == "":
				fmt.Fprintf(w, "config:        none (no user config directory)\n")
			default:
				state := "not present (defaults apply; `fpstop info --default-config > FILE` writes one)"
				if _, serr := os.Stat(path); serr == nil {
					state = "loaded"
					if f, lerr := config.Load(cmd.Context(), path); lerr != nil {
						state = "error: " + lerr.Error()
					} else if aerr := config.Apply(cmd.Root().Flags(), f); aerr != nil {
						state = "error: " + aerr.Error()
					}
				}
				fmt.Fprintf(w, "config:        %s (%s; %s)\n", path, from, state)
			}
			if lp, err := logging.DefaultPath(); err == nil {
				fmt.Fprintf(w, "log:           %s\n", lp)
			}
			td := config.ThemeDir(path)
			fmt.Fprintf(w, "themes:        built in: %s\n", strings.Join(themes.Names(), ", "))
			if td != "" {
				fmt.Fprintf(w, "user themes:   %s%s\n", td, listThemes(td))
			}
			detected := termenv.NewOutput(os.Stdout).EnvColorProfile()
			prof, _ := themes.ColorProfile(a.opts.Color, a.env.Getenv, detected)
			fmt.Fprintf(w, "colour:        %s (--color %s; NO_COLOR=%q; TERM=%q; COLORTERM=%q)\n",
				profileName(prof), a.opts.Color, a.env.Getenv("NO_COLOR"), a.env.Getenv("TERM"), a.env.Getenv("COLORTERM"))
			fmt.Fprintf(w, "background:    dark=%v (as lipgloss detects it)\n", a.env.StdoutIsTerminal && lipgloss.HasDarkBackground())
			writeDeviceCost(w)
			addr, err := device.ServerAddr(a.opts.AdbHost, a.opts.AdbPort)
			if err != nil {
				fmt.Fprintf(w, "adb server:    %v\n", err)
				return nil
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
			defer cancel()
			cl, err := device.Connect(ctx, addr, device.Options{NoStartServer: true})
			if err == nil {
				var v int
				if v, err = cl.ServerVersion(ctx); err == nil {
					infos, derr := cl.Devices(ctx)
					fmt.Fprintf(w, "adb server:    %s (reachable, protocol version %d, %d device(s)%s)\n", addr, v, len(infos), errSuffix(derr))
					return nil
				}
			}
			hint := ""
			if errors.Is(err, device.ErrNoServer) {
				hint = "; fpstop starts one when `adb` is on PATH"
			}
			fmt.Fprintf(w, "adb server:    %s (not reachable: %v%s)\n", addr, err, hint)
			return nil
		},
	}
	c.Flags().BoolVar(&defaultConfig, "default-config", false, "print a commented config file with every setting and its default")
	// The adb server line asks the server the user names, as the main command would.
	c.Flags().StringVar(&a.opts.AdbHost, "adb-host", "", "adb server host (default localhost, or $ADB_SERVER_SOCKET)")
	c.Flags().IntVar(&a.opts.AdbPort, "adb-port", 0, "adb server port (default 5037, or $ADB_SERVER_SOCKET)")
	return c
}

func errSuffix(err error) string {
	if err != nil {
		return "; listing failed: " + err.Error()
	}
	return ""
}

func listThemes(dir string) string {
	m, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(m) == 0 {
		return " (none)"
	}
	names := make([]string, len(m))
	for i, p := range m {
		names[i] = strings.TrimSuffix(filepath.Base(p), ".yaml")
	}
	sort.Strings(names)
	return " (" + strings.Join(names, ", ") + ")"
}

func profileName(p termenv.Profile) string {
	switch p {
	case termenv.TrueColor:
		return "true colour"
	case termenv.ANSI256:
		return "256 colours"
	case termenv.ANSI:
		return "16 colours"
	}
	return "no colour"
}
