package cli

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fpstop/fpstop/internal/mcpserver"
	"github.com/fpstop/fpstop/metrics"
)

// mcpCmd is `fpstop mcp`: the Model Context Protocol server for coding agents (docs/agents.md).
// The server lives in internal/mcpserver; it runs every measurement, report and comparison
// through Main, so its tools mean exactly what the commands mean.
func (a *app) mcpCmd() *cobra.Command {
	var o mcpserver.Options
	c := &cobra.Command{
		Use:   "mcp",
		Short: "serve fpstop to coding agents over the Model Context Protocol (stdio)",
		Long: `mcp runs an MCP server on stdin/stdout for a coding agent (Claude Code, Cursor, VS Code,
Codex, Gemini CLI…): tools to list devices and apps, measure an app (or the simulator), summarise
a recording or capture, compare two runs, and keep live sessions the agent polls while it drives
the app. Every result starts with a plain-language summary. Safe by default: a driver command runs
only when the client passes one and the server was started with --allow-commands; files are read
and written only under the working directory and the --root directories. See docs/agents.md.`,
		Example: `  fpstop mcp
  fpstop mcp --root ~/perf-runs --allow-commands
  claude mcp add fpstop -- fpstop mcp --root /tmp/fpstop`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.opts.AdbPort < 0 || a.opts.AdbPort > 65535 {
				return usageErr("--adb-port %d: not a port", a.opts.AdbPort)
			}
			o.Version = a.env.Build.Version
			o.AdbHost, o.AdbPort = a.opts.AdbHost, a.opts.AdbPort
			o.Run = mcpRunner(a.env)
			err := mcpserver.Serve(cmd.Context(), a.env.Stdin, a.env.Stdout, o)
			if err != nil {
				return runtimeErr(err)
			}
			return nil
		},
	}
	fs := c.Flags()
	fs.BoolVar(&o.AllowCommands, "allow-commands", false, "let clients pass a driver command to measure (run with sh -c, as fpstop test --command)")
	fs.StringArrayVar(&o.Roots, "root", nil, "also allow files under DIR (repeatable; the working directory is always allowed)")
	fs.StringVar(&a.opts.AdbHost, "adb-host", "", "adb server host (default localhost, or $ADB_SERVER_SOCKET)")
	fs.IntVar(&a.opts.AdbPort, "adb-port", 0, "adb server port (default 5037, or $ADB_SERVER_SOCKET)")
	return c
}

// mcpRunner runs one fpstop command line in this process for the MCP server, with its own
// streams: stdout is the server's protocol channel and must never see a report.
func mcpRunner(env Env) func(ctx context.Context, args []string, stdout, stderr io.Writer, live func(func() *metrics.Report)) int {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer, live func(func() *metrics.Report)) int {
		return Main(ctx, args, Env{Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr,
			Getenv: env.Getenv, Build: env.Build, Live: live})
	}
}
