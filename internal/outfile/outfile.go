// Package outfile creates the files fpstop writes for users (recordings, simulator truth,
// traces): mode 0644 whatever the umask, and never over an existing file unless forced.
package outfile

import (
	"errors"
	"fmt"
	"os"
)

// ErrExists is wrapped by Create when the file exists and force is false.
var ErrExists = errors.New("file already exists")

// Create creates path for writing. Without force an existing file is an error wrapping
// ErrExists; with force it is truncated. The mode is 0644 even under a narrower umask.
func Create(path string, force bool) (*os.File, error) {
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s: %w (add --force to overwrite)", path, ErrExists)
		}
		return nil, fmt.Errorf("cannot create %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot create %s: %w", path, err)
	}
	return f, nil
}
