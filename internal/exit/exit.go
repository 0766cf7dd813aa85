// Package exit is fpstop's exit statuses (DESIGN §7) and the errors that carry them. The
// command line, the multi-device lab and `fpstop test` each end a run with one of these, so the
// status a user's script sees does not depend on which of them ran.
package exit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fpstop/fpstop/internal/outfile"
	"github.com/fpstop/fpstop/internal/session"
)

// Exit statuses (DESIGN §7).
const (
	OK      = 0
	Gate    = 1 // a gate failed (a run without frames fails every gate)
	Usage   = 2 // bad flags or arguments (an output file that exists, without --force, too)
	Runtime = 3 // no device, adb failure, unreadable input
)

// codedError carries an exit status with the one-sentence message printed on stderr.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// Usagef is a usage error (exit 2): bad flags or arguments.
func Usagef(format string, args ...any) error {
	return &codedError{code: Usage, err: fmt.Errorf(format, args...)}
}

// RuntimeErr is err as a runtime error (exit 3), unless it already carries a status. nil stays
// nil.
func RuntimeErr(err error) error {
	if err == nil {
		return nil
	}
	var ee *codedError
	if errors.As(err, &ee) {
		return err
	}
	// an output file that exists is the user's to resolve (--force, another name): the same
	// status from every command that writes one
	if errors.Is(err, outfile.ErrExists) || errors.Is(err, session.ErrExists) {
		return &codedError{code: Usage, err: err}
	}
	return &codedError{code: Runtime, err: err}
}

// RecordingErr is a recording that cannot start: a name clash or a file that cannot be
// created is a usage error.
func RecordingErr(err error) error {
	if errors.Is(err, session.ErrExists) || errors.Is(err, session.ErrCannotCreate) {
		return Usagef("%v", err)
	}
	return RuntimeErr(err)
}

// GateError is returned when gates failed; the report was already printed. Each failure is
// printed on its own line.
type GateError struct{ Failures []string }

func (g *GateError) Error() string {
	return "gate failed: " + strings.Join(g.Failures, "; ")
}

// Code maps an error to an exit status.
func Code(err error) int {
	if err == nil {
		return OK
	}
	var ee *codedError
	if errors.As(err, &ee) {
		return ee.code
	}
	var ge *GateError
	if errors.As(err, &ge) {
		return Gate
	}
	return Runtime
}

// Sentence keeps the first line of an error and ends it like a sentence: what fpstop prints on
// stderr, and what a report or notice says of an error.
func Sentence(err error) string {
	s := strings.TrimSpace(strings.SplitN(err.Error(), "\n", 2)[0])
	if s != "" && !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, ")") {
		s += "."
	}
	return s
}
