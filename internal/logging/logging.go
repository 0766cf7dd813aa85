// Package logging sends fpstop's log to a file under the user cache directory: while the
// dashboard owns the terminal nothing may be written to stdout or stderr.
package logging

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/fpstop/fpstop/internal/outfile"
)

// DefaultPath is <user cache dir>/fpstop/fpstop.log ($XDG_CACHE_HOME or ~/.cache on Linux).
func DefaultPath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory for the log: %w", err)
	}
	return filepath.Join(dir, "fpstop", "fpstop.log"), nil
}

// Open starts logging to path (appending; created 0644 with its directory), at debug level when
// debug is set, else info. It returns the logger and a close function. When the file cannot be
// opened the log is discarded and the error returned, so fpstop still runs.
func Open(path string, debug bool) (*slog.Logger, func() error, error) {
	level := slog.LevelInfo
	if debug {
		level = slog.LevelDebug
	}
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return discard, func() error { return nil }, fmt.Errorf("log directory: %w", err)
	}
	f, err := outfile.Append(path)
	if err != nil {
		return discard, func() error { return nil }, fmt.Errorf("log file: %w", err)
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})), f.Close, nil
}
