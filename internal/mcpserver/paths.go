package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// roots are the directories a client may name files in: the working directory and every
// --root. A path is resolved (relative to the working directory, symbolic links followed as far
// as the path exists) before it is checked, so "../" and links cannot lead out of them.
type roots struct {
	work string   // the working directory, resolved
	dirs []string // work first, then each --root, resolved
}

func newRoots(work string, extra []string) (*roots, error) {
	w, err := resolve(work)
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	r := &roots{work: w, dirs: []string{w}}
	for _, d := range extra {
		if d == "" {
			return nil, errors.New("--root: empty directory name")
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(w, d)
		}
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--root %s: not a directory", d)
		}
		rd, err := resolve(d)
		if err != nil {
			return nil, fmt.Errorf("--root %s: %w", d, err)
		}
		r.dirs = append(r.dirs, rd)
	}
	return r, nil
}

// resolve makes p absolute and follows the symbolic links of its longest existing prefix (the
// rest, not created yet, is kept as written, cleaned).
func resolve(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest), nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// allow returns the resolved path of p when it lies inside a root, else an error that says how
// to allow it. what names the argument ("file", "record_dir") for the message.
func (r *roots) allow(what, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("%s is empty: give a path inside %s", what, r.list())
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%s %q is not a path", what, p)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.work, p)
	}
	rp, err := resolve(p)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", what, p, err)
	}
	for _, d := range r.dirs {
		if rel, err := filepath.Rel(d, rp); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rp, nil
		}
	}
	return "", fmt.Errorf("%s %s is outside the directories this server may use (%s): copy it there, or restart the server with `fpstop mcp --root DIR`",
		what, p, r.list())
}

func (r *roots) list() string { return strings.Join(r.dirs, ", ") }
