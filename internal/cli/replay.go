package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fpstop/fpstop/internal/capture"
	"github.com/fpstop/fpstop/internal/outfile"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/report"
	"github.com/fpstop/fpstop/report/trace"
	"github.com/fpstop/fpstop/source"
)

// oneFile checks the arguments of a command that reads one file: a bare call shows how to call
// the command, then says what is missing.
func oneFile(missing string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			fmt.Fprint(cmd.ErrOrStderr(), cmd.UsageString())
			return usageErr("%s", missing)
		}
		return nil
	}
}

func (a *app) replayCmd() *cobra.Command {
	var follow bool
	c := &cobra.Command{
		Use:   "replay FILE",
		Short: "the dashboard driven by a recording (space pause, ←/→ seek 10 s, +/- speed, home/end)",
		Args:  oneFile("replay needs one recording file: fpstop replay FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.prepare(cmd); err != nil {
				return err
			}
			a.startLog()
			if !a.env.StdoutIsTerminal {
				return usageErr("replay needs a terminal: use `fpstop report %s` in scripts", args[0])
			}
			speed := a.opts.Speed
			if speed == 0 {
				speed = 1
			}
			label := args[0]
			rec, err := a.asRecording(args[0])
			if err != nil {
				return runtimeErr(err)
			}
			rp, err := record.NewReplay(rec, record.ReplayOptions{Speed: speed, Follow: follow, StayAtEnd: true})
			if err != nil {
				return runtimeErr(err)
			}
			a.opts.Input = args[0]
			op := &opened{src: rp, kind: string(rp.Header().Source), note: "replay of " + label}
			return a.runScreen(cmd.Context(), op, rp.Control())
		},
	}
	fs := c.Flags()
	fs.Float64Var(&a.opts.Speed, "speed", 1, "playback speed (0.25 to 16)")
	fs.BoolVar(&follow, "follow", false, "keep following an uncompressed recording that is still being written")
	a.opts.bindScreenFlags(c.Flags())
	return c
}

// bindScreenFlags adds the flags that shape the screen and the numbers to a subcommand.
func (o *Options) bindScreenFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Theme, "theme", "dark", "colour theme")
	fs.StringVar(&o.Color, "color", "auto", "colour output: auto, always, never")
	fs.BoolVar(&o.NoMouse, "no-mouse", false, "do not capture the mouse")
	fs.DurationVar(&o.Refresh, "refresh", defaultRefresh, "screen refresh period")
	o.bindMetricsFlags(fs)
}

// bindMetricsFlags adds the flags that change the numbers.
func (o *Options) bindMetricsFlags(fs *pflag.FlagSet) {
	fs.Float64Var(&o.TargetFPS, "target-fps", 0, "FPS target the current value is coloured against (default: 92 % of the refresh rate, 55 at 60 Hz, 110 at 120 Hz)")
	fs.Float64Var(&o.SlowMs, "slow-ms", 0, "list messages whose max reaches this many ms (default: one frame interval)")
	fs.StringVar(&o.DropLevels, "drop-levels", "3,9,24,42", "NORMAL,MIDDLE,HIGH,FROZEN thresholds in 60 Hz frames")
}

func (a *app) reportCmd() *cobra.Command {
	var format, output string
	c := &cobra.Command{
		Use:   "report FILE",
		Short: "summarise a recording or a capture (anything --input reads): json (the headless report), md (for a pull request), csv (one row per frame), html (one offline page with charts)",
		Args:  oneFile("report needs one file (a recording, capture or trace): fpstop report FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.prepare(cmd); err != nil {
				return err
			}
			var err error
			if args[0], err = a.asRecording(args[0]); err != nil {
				return runtimeErr(err)
			}
			meta := metrics.ReportMeta{Version: a.env.Build.Version}
			switch strings.ToLower(format) {
			case "csv", "md", "markdown", "json", "html":
			default:
				return usageErr("--format %q: want json, md, csv or html", format)
			}
			open := func() (source.Source, error) {
				a.opts.Input = args[0] // a capture is read as --input reads it
				op, err := a.inputSource()
				if err != nil {
					return nil, err
				}
				return op.src, nil
			}
			path, cleanup, err := capture.Reportable(cmd.Context(), args[0], open, a.sessionConfig(false))
			defer cleanup()
			if err != nil {
				return err
			}
			name := args[0]
			args = []string{path}
			var rep *metrics.Report
			write := func(out io.Writer) error {
				var err error
				switch strings.ToLower(format) {
				case "csv":
					return report.WriteCSV(out, args[0], metrics.Config{}) // Matrix's default drop levels
				case "md", "markdown", "json":
					an, err := report.Analyse(args[0], a.opts.metricsConfig(), meta, nil)
					if err != nil {
						return err
					}
					rep = an.Report
					rep.Warnings = capture.NameCapture(rep.Warnings, args[0], name)
					if strings.ToLower(format) == "json" {
						return writeJSON(out, rep)
					}
					return report.WriteMarkdownSeries(out, rep, an.Series)
				case "html":
					rep, err = htmlReport(out, args[0], name, a.opts.metricsConfig(), meta)
					return err
				}
				return nil
			}
			if err := writeOutput(cmd.OutOrStdout(), output, a.opts.Force, write); err != nil {
				return runtimeErr(err)
			}
			if rep == nil {
				return nil
			}
			return a.opts.gates().Finish(rep, "report", time.Now())
		},
	}
	c.Flags().StringVar(&format, "format", "json", "json, md, csv or html")
	c.Flags().StringVarP(&output, "output", "o", "", "write the report to this file instead of stdout")
	c.Flags().BoolVar(&a.opts.Force, "force", false, "overwrite the --output file")
	bindGates(c.Flags(), &a.opts)
	a.opts.bindMetricsFlags(c.Flags())
	return c
}

// traceLimit is the size above which export refuses without --force: Perfetto UI opens traces
// of up to about 2 GB in a browser, and a trace of more than 500 MB is slow to open already.
var traceLimit int64 = 500 << 20 // a var: tests lower it

// traceFormat picks the trace format: --format, else by OUT's extension (.pftrace and
// .perfetto-trace are Perfetto's protobuf format, anything else JSON).
func traceFormat(format, out string) (perfetto bool, err error) {
	switch format {
	case "perfetto", "proto":
		return true, nil
	case "json":
		return false, nil
	case "":
		return strings.HasSuffix(out, ".pftrace") || strings.HasSuffix(out, ".perfetto-trace"), nil
	}
	return false, usageErr("--format %q: want json or perfetto", format)
}

func (a *app) exportCmd() *cobra.Command {
	var traceOut, from, to, format, rawDir string
	c := &cobra.Command{
		Use:   "export FILE --trace OUT.json|OUT.pftrace [--from D|TIME] [--to D|TIME] | export FILE --raw-traces DIR",
		Short: "export a recording (or a part of it) as a trace for Perfetto UI: Chrome trace-event JSON or Perfetto's protobuf format",
		Long: "export writes a recording as Chrome trace-event JSON (Perfetto UI, chrome://tracing), or, for an OUT\n" +
			"ending in .pftrace (or --format perfetto), as Perfetto's native protobuf trace: the same tracks and\n" +
			"events, about 2.5 times smaller. --from/--to select a part: a duration from the recording's start\n" +
			"(10m, 1h5m) or an RFC 3339 time. Before writing more than 500 MB it prints the estimated size and\n" +
			"refuses (exit 2) unless --force is given: Perfetto UI opens about 2 GB at most.\n" +
			"--raw-traces DIR writes instead the phone's own Perfetto traces of a --source perfetto run recorded\n" +
			"with --record-raw: one file per tracing session (at most 30 s each, overlapping its neighbours by\n" +
			"about 5 s, so they are not joined: a joined trace would show the overlaps' frames twice).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if rawDir != "" {
				return exportRawTraces(cmd, args[0], rawDir, traceOut, a.opts.Force)
			}
			if traceOut == "" {
				return usageErr("export needs --trace OUT.json (or --raw-traces DIR)")
			}
			opts := trace.Options{}
			var err error
			if args[0], err = a.asRecording(args[0]); err != nil {
				return runtimeErr(err)
			}

			if opts.Perfetto, err = traceFormat(format, traceOut); err != nil {
				return err
			}
			if opts.From, err = trace.ParseTimeBound(from); err != nil {
				return usageErr("--from %v", err)
			}
			if opts.To, err = trace.ParseTimeBound(to); err != nil {
				return usageErr("--to %v", err)
			}
			if !a.opts.Force {
				if _, err := trace.Estimate(args[0], opts, traceLimit); err != nil {
					if se := (*trace.SizeError)(nil); errors.As(err, &se) {
						return usageErr("%v: Perfetto UI opens about 2 GB at most; export a part with --from/--to "+
							"(e.g. --from 1h --to 2h), or pass --force to write it anyway", se)
					}
					return runtimeErr(err)
				}
			}
			f, err := outfile.Create(traceOut, a.opts.Force)
			if errors.Is(err, outfile.ErrNotRegular) {
				return usageErr("--trace: %v", err)
			}
			if err != nil {
				return runtimeErr(err)
			}
			if err := trace.Export(f, args[0], opts); err != nil {
				f.Close()
				os.Remove(traceOut)
				return runtimeErr(err)
			}
			if err := f.Close(); err != nil {
				return runtimeErr(err)
			}
			where := "https://ui.perfetto.dev (Open trace file) or chrome://tracing"
			if opts.Perfetto {
				where = "https://ui.perfetto.dev (Open trace file)"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: open it at %s\n", traceOut, where)
			return nil
		},
	}
	c.Flags().StringVar(&traceOut, "trace", "", "output file (Chrome trace-event JSON; Perfetto protobuf for .pftrace)")
	c.Flags().StringVar(&format, "format", "", "json or perfetto (default: perfetto for a .pftrace or .perfetto-trace file, else json)")
	c.Flags().StringVar(&rawDir, "raw-traces", "", "write the Perfetto traces kept by --record-raw (a --source perfetto run) into this directory, one .pftrace per tracing session")
	c.Flags().StringVar(&from, "from", "", "start of the part to export: a duration from the recording's start (10m, 1h5m) or an RFC 3339 time")
	c.Flags().StringVar(&to, "to", "", "end of the part to export (same forms as --from)")
	c.Flags().BoolVar(&a.opts.Force, "force", false, "overwrite OUT.json, and write a trace over 500 MB")
	return c
}

// exportRawTraces is `export FILE --raw-traces DIR`: the phone's own traces of a recorded
// --source perfetto run, one per tracing session.
func exportRawTraces(cmd *cobra.Command, rec, dir, traceOut string, force bool) error {
	if traceOut != "" {
		return usageErr("--raw-traces writes the phone's traces as they were: give it or --trace, not both")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usageErr("--raw-traces %s: not a directory", dir)
	}
	files, err := trace.ExportRaw(rec, dir, force)
	if err != nil {
		for _, f := range files {
			os.Remove(f)
		}
		if errors.Is(err, outfile.ErrExists) {
			return usageErr("%v (--force overwrites)", err)
		}
		return runtimeErr(err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d Perfetto traces (one per tracing session) to %s: open each at https://ui.perfetto.dev (Open trace file)\n",
		len(files), dir)
	return nil
}
