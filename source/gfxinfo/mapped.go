package gfxinfo

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"unsafe"
)

// A capture named by its path is read through a mapping of the file where the platform allows
// it (mapped_unix.go): the dumpReader's buffer is then the mapping itself, and a dump is handed
// to the parser as a slice of the page cache, where read(2) copied every byte into the reader's
// 4 MB buffer first (the kernel's _copy_to_iter was 7–9 % of a replay's CPU, plus the faults
// of the buffer itself). The file is read as a stream all the same: the text before the dump
// the parser still compares against is given back every releaseStep bytes (releaseMapped), so
// the mapped pages in memory stay a few MB whatever the file's size.
//
// Measured whole process against read(2) (GOMAXPROCS=1, perf stat, 15 alternated runs, page
// cache warm, a busy 2-vCPU VM): framestats17 task-clock min/median 307.7/316.6 → 298.9/304.3
// ms, system time median 57 → 25 ms, user time 267 → 288 ms (the parser's first touch of the
// text now misses in the CPU cache where the kernel's copy did), page faults median 11,044 →
// 7,493 (the 4 MB buffer's gone; the mapping's, one per 64 kB with the kernel's fault-around,
// come instead); framestats23 min 359.0 → 346.4 ms, system time 91 → 40 ms. Peak RSS on a 1.2
// GB capture 51.5 → 43.7 MB at GOMAXPROCS=1. MADV_POPULATE_READ ahead of the reader (4 MB at a
// time) took ~2,300 more faults off but no CPU time (mapping the pages costs what faulting
// them did), and MADV_SEQUENTIAL nothing measurable: neither is used.
//
// Anything else — stdin, a pipe, a special file, a file of size 0 (as /proc files report), a
// UTF-16 capture (decoded by a transform reader) or a platform without the mapping — is read
// as before. A file that grows while it is read is read to its end: past the size it had when
// mapped, the reader goes on with ordinary reads (leaveMap). A file that shrinks makes the
// mapping's pages past its new end fault (SIGBUS); the reading goroutine panics instead of the
// process dying (debug.SetPanicOnFault) and Run returns an error (captureFile.close).

// captureFile is a capture opened by the file source: the file, and its text mapped when the
// platform and the file allow it (data, nil when not).
type captureFile struct {
	f         *os.File
	data      []byte
	prevFault bool // the goroutine's SetPanicOnFault before the mapping was read
}

// openCapture opens path for reading, mapped where it can be. The mapping is read on the
// calling goroutine only (Run's), which panics on a fault in it until close.
func openCapture(path string) (*captureFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	c := &captureFile{f: f, data: mapFile(f)}
	if c.data != nil {
		c.prevFault = debug.SetPanicOnFault(true)
	}
	return c, nil
}

// Read reads the file (when the mapping is not used, or past its end).
func (c *captureFile) Read(p []byte) (int, error) { return c.f.Read(p) }

// close unmaps and closes the file; deferred by Run, it turns a fault in the mapping (the file
// shrank while it was read) into Run's error *err. It must be deferred directly: it recovers.
func (c *captureFile) close(name string, err *error) {
	if c.data != nil {
		if r := recover(); r != nil {
			if !c.faultIn(r) {
				panic(r)
			}
			*err = fmt.Errorf("gfxinfo: %s shrank while it was read (%w)", name, r.(error))
		}
		debug.SetPanicOnFault(c.prevFault)
		unmapFile(c.data)
		c.data = nil
	}
	c.f.Close()
}

// faultIn reports whether panic value r is a memory fault inside the mapping.
func (c *captureFile) faultIn(r any) bool {
	fe, ok := r.(interface {
		runtime.Error
		Addr() uintptr
	})
	if !ok {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(c.data)))
	page := uintptr(os.Getpagesize())
	return fe.Addr() >= start && fe.Addr() < start+(uintptr(len(c.data))+page-1)&^(page-1)
}

// releaseStep is how much consumed text is given back at a time: a madvise call per 4 MB.
const releaseStep = 4 << 20

// useMap makes the mapping of r (when r is a mapped captureFile) the reader's buffer, whole.
// A UTF-16 capture is not: it is read through the decoder (the mapping is left unread).
func (d *dumpReader) useMap(r io.Reader) bool {
	c, ok := r.(*captureFile)
	if !ok || c.data == nil || sniffUTF16(c.data[:min(len(c.data), 64<<10)]) != nil {
		return false
	}
	d.mapped, d.buf, d.end = c, c.data, len(c.data)
	return true
}

// releaseMapped gives back the mapped pages before the text the reader still needs (the dump
// handed out last, which the parser compares the next against, and what follows), once
// releaseStep bytes of them are in hand: touched pages of a mapping count in the process's
// resident memory, and a capture may be gigabytes long.
func (d *dumpReader) releaseMapped() {
	if d.mapped == nil {
		return
	}
	from := d.off
	if d.prevAt >= 0 {
		from = min(from, d.prevAt)
	}
	from &^= os.Getpagesize() - 1
	if from-d.released >= releaseStep {
		releasePages(d.buf[d.released:from])
		d.released = from
	}
}

// leaveMap moves the reader off the mapping once all of it is used, as more moves unread text:
// the text after the dump before (kept for the parser) goes into a buffer of its own, and the
// file is read on from the size it had when mapped (it may have grown since).
func (d *dumpReader) leaveMap() {
	from := d.off
	if d.prevAt >= 0 {
		from = d.prevAt
	}
	tail := d.buf[from:d.end]
	buf := make([]byte, max(readBlock, 2*len(tail)))
	d.end = copy(buf, tail)
	d.off -= from
	if d.prevAt >= 0 {
		d.prevAt -= from
	}
	d.buf = buf
	if _, err := d.mapped.f.Seek(int64(len(d.mapped.data)), io.SeekStart); err != nil {
		d.r = errReader{err}
	}
	d.mapped = nil
}
