// Package cli is fpstop's command line: flags and subcommands, source selection (DESIGN §7),
// the headless run and the dashboard's wiring. main.go only calls Main.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fpstop/fpstop/internal/buildinfo"
	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/internal/lab"
	"github.com/fpstop/fpstop/internal/logging"
	"github.com/fpstop/fpstop/metrics"
)

// Env is what the command line runs with: streams, environment and build information. Tests
// substitute every field.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Build          buildinfo.Info
	// StdinIsTerminal / StdoutIsTerminal say whether the dashboard can run.
	StdoutIsTerminal bool
	// Live, when set, is handed a function returning the running headless session's report so
	// far, once the session has started: the MCP server's live_snapshot reads a session it did
	// not start itself through it.
	Live func(report func() *metrics.Report)
}

// app is one invocation.
type app struct {
	env        Env
	opts       Options
	log        *slog.Logger
	logPath    string
	configPath string
	closers    []func() error
	probes     autoProbes // what auto's looks for Looper lines say
}

// Main runs fpstop with args (without the program name) and returns the exit status.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	a := &app{env: env, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	for i := len(a.closers) - 1; i >= 0; i-- {
		_ = a.closers[i]()
	}
	if a.opts.Debug && a.logPath != "" {
		fmt.Fprintf(env.Stderr, "log: %s\n", a.logPath)
	}
	if err == nil {
		return ExitOK
	}
	code := exit.Code(err)
	if code == ExitOK {
		code = ExitRuntime
	}
	var ge *exit.GateError
	if errors.As(err, &ge) {
		for _, f := range ge.Failures {
			fmt.Fprintf(env.Stderr, "fpstop: gate failed: %s\n", f)
		}
		return ExitGate
	}
	if isFlagError(err) {
		code = ExitUsage
	}
	fmt.Fprintf(env.Stderr, "fpstop: %s\n", oneSentence(err))
	return code
}

func isFlagError(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand", "invalid argument", "flag needs an argument",
		"unknown command", "accepts ", "requires at least", "requires exactly", "bad flag syntax"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "fpstop",
		Short: "top for Android frame rate",
		Long: `fpstop shows, live, how smoothly an Android app renders: FPS per window, dropped frames by
severity, and the main-thread messages that caused the stutter. It reads a phone over adb
(dumpsys gfxinfo framestats, logcat Looper lines), a captured file, a recording, or its built-in
vsync simulator, which it shows when no device is connected.`,
		Example: `  fpstop                                  # the dashboard: the device's foreground app, or the simulator
  fpstop -p com.example.app               # a given app on the only device
  fpstop --scenario janky --hz 120        # the simulator
  fpstop --headless --duration 30s --json --fail-under-fps 55 --max-jank-pct 5
  adb logcat -v threadtime | fpstop --source logcat --input -
  fpstop report run.jsonl.gz --format md`,
		Version:       a.env.Build.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE:          a.runMain,
	}
	root.SetVersionTemplate(a.env.Build.String() + "\n")
	a.opts.bind(root.Flags())
	root.Flags().SortFlags = false
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v (see fpstop --help)", err)
	})
	// the subcommands besides the dashboard (DESIGN §7)
	root.AddCommand(versionCmd(a.env.Build), a.devicesCmd(), a.replayCmd(), a.reportCmd(), a.exportCmd(), a.infoCmd(),
		manCmd(), a.compareCmd(), a.testCmd(), a.mcpCmd())
	registerCompletions(root, &a.opts)
	return root
}

func versionCmd(build buildinfo.Info) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "print version, commit, build date and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), build)
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), build.String())
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

// startLog opens the log file (never the terminal).
func (a *app) startLog() {
	path, err := logging.DefaultPath()
	if err != nil {
		return
	}
	lg, closeFn, err := logging.Open(path, a.opts.Debug)
	a.log = lg
	a.logPath = path
	a.closers = append(a.closers, closeFn)
	if err != nil {
		a.logPath = ""
	}
}

func (a *app) runMain(cmd *cobra.Command, _ []string) error {
	if err := a.prepare(cmd); err != nil {
		return err
	}
	a.startLog()
	a.log.Info("start", "version", a.env.Build.Version, "opts", a.opts.String())
	if a.opts.Headless { // the same flags mean the same in both modes: a bad theme is an error here too
		if _, err := resolveTheme(a.opts.Theme, a.userThemeDir); err != nil {
			return usageErr("%v", err)
		}
	}
	if a.opts.multi() && a.opts.Headless {
		cfg, err := a.labConfig(cmd.Context())
		if err != nil {
			return err
		}
		return lab.Headless(cmd.Context(), cfg)
	}
	if a.opts.multi() {
		return a.dashboardMulti(cmd.Context())
	}
	if a.opts.Headless {
		return a.headless(cmd.Context())
	}
	return a.dashboard(cmd.Context())
}

// prepare applies the config file to the command's flags and validates them.
func (a *app) prepare(cmd *cobra.Command) error {
	if err := a.loadConfig(cmd.Context(), cmd.Flags()); err != nil {
		return err
	}
	fs := cmd.Flags()
	return a.opts.validate(fs.Changed, func(name string) bool { return flagSet(fs, name) })
}
