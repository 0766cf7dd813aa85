//go:build !linux

package adbtest

import "os/exec"

// setParentDeathSignal is Linux-only; elsewhere the test's cleanup alone stops the server.
func setParentDeathSignal(cmd *exec.Cmd) {}
