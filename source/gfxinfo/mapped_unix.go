//go:build linux || darwin

package gfxinfo

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapSupported: captures are mapped on this platform.
const mapSupported = true

// mapFile maps f's text read-only, or returns nil where it cannot (not a regular file, size 0
// as /proc files report, or mmap refused): the file is then read.
func mapFile(f *os.File) []byte {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= 0 || int64(int(st.Size())) != st.Size() {
		return nil
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return b
}

func unmapFile(b []byte) { _ = unix.Munmap(b) }

// releasePages drops b's pages from the process (they are read again from the file if
// touched); page-aligned b. A failure only leaves them resident.
func releasePages(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }
