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
)

// RequireXmllint skips (or, with FPSTOP_REQUIRE_XMLLINT=1 as CI sets, fails) when err says
// xmllint is missing.
func requireXmllint(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, ErrNoXmllint) {
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
	p, err := Check(bytes.NewReader(b))
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
	requireXmllint(t, Xmllint(context.Background(), path))
}

// The checks and the schema must be able to fail.
func TestInvalidDocumentsAreRefused(t *testing.T) {
	bad := map[string]string{
		"root":     `<testsuite name="x" tests="0"/>`,
		"count":    `<testsuites><testsuite name="x" tests="2"><testcase name="a"/></testsuite></testsuites>`,
		"noname":   `<testsuites><testsuite name="x" tests="1"><testcase classname="c"/></testsuite></testsuites>`,
		"failures": `<testsuites><testsuite name="x" tests="1" failures="0"><testcase name="a"><failure message="m"/></testcase></testsuite></testsuites>`,
		"time":     `<testsuites><testsuite name="x" tests="1" time="soon"><testcase name="a"/></testsuite></testsuites>`,
	}
	dir := t.TempDir()
	for name, doc := range bad {
		if _, err := Check(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: Check accepted %s", name, doc)
		}
		if name == "count" || name == "failures" || name == "root" || testing.Short() {
			continue // beyond the schema (which also allows a lone <testsuite>): only Check knows
		}
		path := filepath.Join(dir, name+".xml")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		err := Xmllint(context.Background(), path)
		if errors.Is(err, ErrNoXmllint) {
			requireXmllint(t, err)
		}
		if err == nil {
			t.Errorf("%s: xmllint accepted %s", name, doc)
		}
	}
}
