//go:build !linux && !darwin

package gfxinfo

import "os"

// mapSupported: captures are mapped on this platform.
const mapSupported = false

// mapFile: no mapping on this platform; the file is read.
func mapFile(*os.File) []byte { return nil }

func unmapFile([]byte) {}

func releasePages([]byte) {}
