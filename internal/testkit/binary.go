package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// BuildBinary builds the real fpstop once per test process and returns its path: the suites
// that start the program (the end-to-end and tmux tests) share one build, however many tests
// or -count runs ask for it. RemoveBinary deletes it when the suite ends.
func BuildBinary() (string, error) {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fpstop-test-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binDir = dir
		binPath = filepath.Join(dir, "fpstop")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/fpstop/fpstop").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	return binPath, buildErr
}

// Binary is BuildBinary for a test: a failed build fails the test.
func Binary(t testing.TB) string {
	t.Helper()
	p, err := BuildBinary()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// RemoveBinary deletes the binary BuildBinary built, if any; TestMain calls it after m.Run.
func RemoveBinary() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// KeepGoCaches pins the go command's caches and settings file to where they are now, before a
// suite gives its processes a fresh HOME: they default to directories under HOME and
// XDG_CACHE_HOME, and with a fresh HOME building the binary would recompile the standard
// library and download every module again, which also fails offline.
func KeepGoCaches() error {
	vars := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"}
	out, err := exec.Command("go", append([]string{"env"}, vars...)...).Output()
	if err != nil {
		return fmt.Errorf("go env: %w", err)
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(vals) != len(vars) {
		return fmt.Errorf("go env printed %d lines for %d variables", len(vals), len(vars))
	}
	for i, v := range vars {
		if vals[i] != "" {
			os.Setenv(v, vals[i])
		}
	}
	return nil
}
