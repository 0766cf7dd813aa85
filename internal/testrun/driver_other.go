//go:build !unix

package testrun

import "os/exec"

// shellCommand runs a user's command line with cmd /C (Windows).
func shellCommand(line string) *exec.Cmd {
	return exec.Command("cmd", "/C", line)
}

// stopCommand kills a started command.
func stopCommand(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
