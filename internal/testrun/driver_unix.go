//go:build unix

package testrun

import (
	"os/exec"
	"syscall"
)

// shellCommand runs a user's command line with sh -c in its own process group, so that stopping
// it also stops what it started (an adb shell input loop, a test runner).
func shellCommand(line string) *exec.Cmd {
	cmd := exec.Command("sh", "-c", line)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// stopCommand ends a started command's process group.
func stopCommand(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}
