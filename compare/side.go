package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fpstop/fpstop/metrics"
)

// SummaryFile is the name of the summary `fpstop test` writes into its directory.
const SummaryFile = "summary.json"

// Paths resolves what the user named for one side: a recording, or a directory — a `fpstop
// test` directory (its summary's successful iterations) or any directory of recordings
// (*.jsonl, *.jsonl.gz, in name order). Several arguments may be given for one side.
func Paths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", a, err)
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		ps, err := dirPaths(a)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	if len(out) == 0 {
		return nil, errors.New("no recordings given")
	}
	return out, nil
}

func dirPaths(dir string) ([]string, error) {
	if b, err := os.ReadFile(filepath.Join(dir, SummaryFile)); err == nil {
		var s Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: the summary is not fpstop test's JSON: %w", filepath.Join(dir, SummaryFile), err)
		}
		var out []string
		for _, it := range s.Iterations {
			if it.Status == StatusOK && it.Recording != "" {
				out = append(out, filepath.Join(dir, filepath.Base(it.Recording)))
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: no iteration of that test succeeded, so there is nothing to compare", dir)
		}
		return out, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot read directory %s: %w", dir, err)
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() && (strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".jsonl.gz")) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("directory %s holds no recordings (*.jsonl, *.jsonl.gz)", dir)
	}
	return out, nil
}

// LoadAll loads recordings (Load) in order.
func LoadAll(paths []string, cfg metrics.Config) ([]*Run, error) {
	runs := make([]*Run, 0, len(paths))
	for _, p := range paths {
		r, err := Load(p, cfg)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}
