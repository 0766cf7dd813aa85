// Package junitcheck reads back the JUnit XML that internal/junit writes and checks it against
// the common JUnit schema, for the tests of every command that writes --junit. It has its own
// reader types, so a test does not trust the writer's own field tags.
package junitcheck

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// Schema is the common JUnit XML schema (Jenkins' junit-10.xsd, types tightened) that fpstop's
// reports are validated against.
//
//go:embed junit-10.xsd
var Schema []byte

// Parsed is a JUnit document read back by Check.
type Parsed struct {
	Tests, Failures int
	Cases           []ParsedCase
}

// ParsedCase is one testcase read back.
type ParsedCase struct {
	Suite, Class, Name string
	Failed             bool
	Message, Output    string
}

// Check reads a JUnit document and applies the schema's rules without an XSD engine (the same
// rules xmllint applies with Schema): the root is <testsuites>; every <testsuite> has a name and
// a non-negative integer tests count; every <testcase> has a name; counts, times and timestamps
// have their types; and, beyond the schema, the counts agree with the testcases.
func Check(r io.Reader) (*Parsed, error) {
	var doc xmlSuites
	dec := xml.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not JUnit XML: %w", err)
	}
	if doc.XMLName.Local != "testsuites" {
		return nil, fmt.Errorf("root element is <%s>, want <testsuites>", doc.XMLName.Local)
	}
	p := &Parsed{}
	if err := decimal("testsuites time", doc.Time); err != nil {
		return nil, err
	}
	for _, s := range doc.Suites {
		if s.Name == "" {
			return nil, errors.New("a <testsuite> has no name")
		}
		if err := decimal("testsuite time", s.Time); err != nil {
			return nil, err
		}
		if s.Timestamp != "" {
			if _, err := time.Parse("2006-01-02T15:04:05", s.Timestamp); err != nil {
				return nil, fmt.Errorf("testsuite %s: timestamp %q is not an xs:dateTime", s.Name, s.Timestamp)
			}
		}
		if s.Tests != len(s.Cases) {
			return nil, fmt.Errorf("testsuite %s says tests=%d but holds %d testcases", s.Name, s.Tests, len(s.Cases))
		}
		failures := 0
		for _, c := range s.Cases {
			if c.Name == "" {
				return nil, fmt.Errorf("testsuite %s: a <testcase> has no name", s.Name)
			}
			if err := decimal("testcase time", c.Time); err != nil {
				return nil, err
			}
			pc := ParsedCase{Suite: s.Name, Class: c.Classname, Name: c.Name, Output: c.SystemOut}
			if c.Failure != nil {
				failures++
				pc.Failed, pc.Message = true, c.Failure.Message
			}
			p.Cases = append(p.Cases, pc)
		}
		if s.Failures != failures {
			return nil, fmt.Errorf("testsuite %s says failures=%d but %d testcases failed", s.Name, s.Failures, failures)
		}
		p.Tests += s.Tests
		p.Failures += failures
	}
	if doc.Tests != p.Tests || doc.Failures != p.Failures {
		return nil, fmt.Errorf("testsuites says %d tests and %d failures; its suites hold %d and %d", doc.Tests, doc.Failures, p.Tests, p.Failures)
	}
	return p, nil
}

type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Time     string     `xml:"time,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name      string    `xml:"name,attr"`
	Tests     int       `xml:"tests,attr"`
	Failures  int       `xml:"failures,attr"`
	Time      string    `xml:"time,attr"`
	Timestamp string    `xml:"timestamp,attr"`
	Cases     []xmlCase `xml:"testcase"`
}

type xmlCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	Time      string `xml:"time,attr"`
	Failure   *struct {
		Message string `xml:"message,attr"`
	} `xml:"failure"`
	SystemOut string `xml:"system-out"`
}

// decimal checks an optional xs:decimal attribute.
func decimal(what, s string) error {
	if s == "" {
		return nil
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return fmt.Errorf("%s %q is not an xs:decimal", what, s)
	}
	return nil
}

// ErrNoXmllint is returned by Xmllint when xmllint (Debian: libxml2-utils) is not installed.
var ErrNoXmllint = errors.New("xmllint is not installed (Debian/Ubuntu: apt-get install libxml2-utils)")

// Xmllint validates the file at path against Schema with xmllint.
func Xmllint(ctx context.Context, path string) error {
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		return ErrNoXmllint
	}
	dir, err := os.MkdirTemp("", "fpstop-junit-xsd")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	xsd := filepath.Join(dir, "junit-10.xsd")
	if err := os.WriteFile(xsd, Schema, 0o644); err != nil {
		return err
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--noout", "--schema", xsd, path)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("xmllint: %w: %s", err, out.String())
	}
	return nil
}
