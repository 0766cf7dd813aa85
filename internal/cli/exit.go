package cli

import (
	"github.com/fpstop/fpstop/internal/exit"
)

// Exit statuses (DESIGN §7).
const (
	ExitOK      = exit.OK
	ExitGate    = exit.Gate
	ExitUsage   = exit.Usage
	ExitRuntime = exit.Runtime
)

func usageErr(format string, args ...any) error { return exit.Usagef(format, args...) }

func runtimeErr(err error) error { return exit.RuntimeErr(err) }

// oneSentence is the error as fpstop prints it: its first line, ended like a sentence.
func oneSentence(err error) string { return exit.Sentence(err) }
