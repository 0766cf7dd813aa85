package record

import (
	"io"
	"sync"
)

// asyncReader reads ahead from r (a gzip stream) on its own goroutine, so decompression runs
// on one core while lines are split and decoded on another. Reads return r's data in order,
// then r's error (io.EOF, or the damage the gzip reader met).
type asyncReader struct {
	ch   chan asyncChunk
	free chan []byte
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup
	buf  []byte // the chunk being consumed
	cur  []byte // its unread part
	err  error  // the error that came with it
}

type asyncChunk struct {
	buf []byte
	err error
}

const (
	asyncChunkSize = 256 << 10
	asyncDepth     = 8
)

func newAsyncReader(r io.Reader) *asyncReader {
	a := &asyncReader{ch: make(chan asyncChunk, asyncDepth), free: make(chan []byte, asyncDepth+2),
		stop: make(chan struct{})}
	a.wg.Add(1)
	go a.fill(r)
	return a
}

func (a *asyncReader) fill(r io.Reader) {
	defer a.wg.Done()
	defer close(a.ch)
	for {
		var buf []byte
		select {
		case <-a.stop:
			return
		case buf = <-a.free:
		default:
			buf = make([]byte, asyncChunkSize)
		}
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var k int
			k, err = r.Read(buf[n:])
			n += k
			if k == 0 && err == nil {
				err = io.ErrNoProgress
			}
		}
		select {
		case a.ch <- asyncChunk{buf: buf[:n], err: err}:
		case <-a.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read implements io.Reader.
func (a *asyncReader) Read(p []byte) (int, error) {
	for len(a.cur) == 0 {
		if a.err != nil {
			return 0, a.err
		}
		if a.buf != nil {
			select {
			case a.free <- a.buf[:cap(a.buf)]:
			default:
			}
			a.buf = nil
		}
		c, ok := <-a.ch
		if !ok {
			a.err = io.EOF
			return 0, io.EOF
		}
		a.buf, a.cur, a.err = c.buf, c.buf, c.err
	}
	n := copy(p, a.cur)
	a.cur = a.cur[n:]
	return n, nil
}

// Close stops the read-ahead goroutine and waits for it.
func (a *asyncReader) Close() {
	a.once.Do(func() {
		close(a.stop)
		for range a.ch {
		}
		a.wg.Wait()
	})
}
