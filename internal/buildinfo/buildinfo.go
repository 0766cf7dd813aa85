// Package buildinfo says what fpstop binary this is: version, commit and date set by the
// release build (goreleaser ldflags on package main), else what the Go toolchain recorded
// (`go install …@vX` reports vX; a checkout build reports its VCS revision when available).
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Info describes the build.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
}

// Get fills what the linker flags left empty from the binary's embedded build information.
func Get(version, commit, date string) Info {
	in := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if in.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			in.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if in.Commit == "" {
					in.Commit = s.Value
					if len(in.Commit) > 12 {
						in.Commit = in.Commit[:12]
					}
				}
			case "vcs.time":
				if in.Date == "" {
					in.Date = s.Value
				}
			}
		}
	}
	if in.Version == "" {
		in.Version = "dev"
	}
	if in.Commit == "" {
		in.Commit = "unknown"
	}
	if in.Date == "" {
		in.Date = "unknown"
	}
	return in
}

// String is the one-line form printed by `fpstop version` and `--version`.
func (in Info) String() string {
	return fmt.Sprintf("fpstop %s (commit %s, built %s, %s, %s)", in.Version, in.Commit, in.Date, in.GoVersion, in.Platform)
}
