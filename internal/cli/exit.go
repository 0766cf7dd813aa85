package cli

import (
	"errors"
	"fmt"

	"github.com/fpstop/fpstop/internal/outfile"
	"github.com/fpstop/fpstop/internal/session"
)

// Exit statuses (DESIGN §7).
const (
	ExitOK      = 0
	ExitGate    = 1 // a gate failed (a run without frames fails every gate)
	ExitUsage   = 2 // bad flags or arguments (an output file that exists, without --force, too)
	ExitRuntime = 3 // no device, adb failure, unreadable input
)

// exitError carries an exit status with the one-sentence message printed on stderr.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

func runtimeErr(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	// an output file that exists is the user's to resolve (--force, another name): the same
	// status from every command that writes one
	if errors.Is(err, outfile.ErrExists) || errors.Is(err, session.ErrExists) {
		return &exitError{code: ExitUsage, err: err}
	}
	return &exitError{code: ExitRuntime, err: err}
}

// gateErr is returned when gates failed; the report was already printed.
type gateErr struct{ failures []string }

func (g *gateErr) Error() string {
	return fmt.Sprintf("gate failed: %s", joinSemi(g.failures))
}

func joinSemi(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += "; "
		}
		out += s
	}
	return out
}

// codeOf maps an error to an exit status.
func codeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var ge *gateErr
	if errors.As(err, &ge) {
		return ExitGate
	}
	return ExitRuntime
}
