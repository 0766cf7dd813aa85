package adbtest

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the server die with the test binary if the test crashes before
// its cleanup runs.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
