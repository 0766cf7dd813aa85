package junit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/junitcheck"
)

// RequireXmllint skips (or, with FPSTOP_REQUIRE_XMLLINT=1 as CI sets, fails) when err says
// xmllint is missing.
func requireXmllint(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, junitcheck.ErrNoXmllint) {
		if os.Getenv("FPSTOP_REQUIRE_XMLLINT") == "1" {
			t.Fatalf("FPSTOP_REQUIRE_XMLLINT=1 but %v", err)
		}
		t.Skipf("schema validation skipped: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func sample() []Suite {
	return []Suite{{
		Name: "fpstop compare", Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Time: 1500 * time.Millisecond,
		Cases: []Case{
			{Name: "max-fps-drop 2", Class: "fpstop.compare.run", Output: "fps 120 → 119.5"},
			{Name: "max-fps-drop 2", Class: "fpstop.compare.window.Popup<&\"'>", Failure: "fps dropped 5 fps, beyond --max-fps-drop 2 & more", Detail: "p 0.001"},
		},
	}, {Name: "empty", Timestamp: time.Unix(0, 0)}}
}

func TestEncodeValidates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "junit.xml")
	if err := WriteFile(path, sample()...); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := junitcheck.Check(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if p.Tests != 2 || p.Failures != 1 || !p.Cases[1].Failed || p.Cases[0].Failed ||
		p.Cases[1].Class != "fpstop.compare.window.Popup<&\"'>" || !strings.Contains(p.Cases[1].Message, "& more") {
		t.Errorf("read back %+v", p)
	}
	if testing.Short() {
		t.Skip("schema validation runs xmllint: only in full runs")
	}
	requireXmllint(t, junitcheck.Xmllint(context.Background(), path))
}
