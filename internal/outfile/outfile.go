// Package outfile creates the files fpstop writes for users (recordings, simulator truth,
// traces, reports, JUnit, the metrics file): mode 0644 whatever the umask, never over an
// existing file unless forced, and only ever a regular file or a new path — a device, FIFO,
// socket, directory or symbolic link at the path is refused, so a typo such as /dev/null or
// /dev/full cannot break the host.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrExists is wrapped by Create when the file exists and force is false.
var ErrExists = errors.New("file already exists")

// ErrNotRegular is wrapped when something other than a regular file is at the path.
var ErrNotRegular = errors.New("not a regular file")

// Check refuses a path at which something other than a regular file exists. It does not follow
// a symbolic link: the link itself is refused (writing through it would clobber its target).
func Check(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return checkMode(path, st.Mode())
}

func checkMode(path string, m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %s: fpstop writes only to a regular file or a new path (%w)", path, describe(m), ErrNotRegular)
}

// describe names a non-regular file's type for the refusal.
func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// Create creates path for writing. Without force an existing file is an error wrapping
// ErrExists; with force an existing regular file is truncated. Anything else at path is an
// error wrapping ErrNotRegular, and nothing is written to it. The mode is 0644 even under a
// narrower umask.
func Create(path string, force bool) (*os.File, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		// no O_TRUNC before the type is known; noFollow refuses a link swapped in since Check and
		// does not wait on a FIFO
		flag = os.O_WRONLY | os.O_CREATE | noFollow
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s: %w (add --force to overwrite)", path, ErrExists)
		}
		if err := Check(path); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("cannot create %s: %w", path, err)
	}
	if err := prepare(f, path, force); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// prepare checks what was opened is a regular file, empties it (forced) and sets its mode.
func prepare(f *os.File, path string, truncate bool) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cannot create %s: %w", path, err)
	}
	if err := checkMode(path, st.Mode()); err != nil {
		return err
	}
	if truncate {
		if err := f.Truncate(0); err != nil {
			return fmt.Errorf("cannot create %s: %w", path, err)
		}
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("cannot create %s: %w", path, err)
	}
	return nil
}

// Append opens path for appending (a log file), creating it; like Create it writes only to a
// regular file or a new path.
func Append(path string) (*os.File, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|noFollow, 0o644)
	if err != nil {
		if err := Check(path); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("cannot open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err == nil {
		err = checkMode(path, st.Mode())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Replace writes path atomically: write fills a temporary file in path's directory, which is
// then renamed over path, so a reader never sees half a file. Only a regular file or a new path
// is replaced; the rename replaces a name, never following a symbolic link.
func Replace(path string, write func(io.Writer) error) error {
	if err := Check(path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := Check(path); err != nil { // something else may have appeared meanwhile
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
