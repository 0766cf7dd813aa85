// Package junit writes CI gate results as JUnit XML, the format every CI system shows (Jenkins,
// GitLab, GitHub Actions reporters, Azure DevOps): one <testsuite> per command run, one
// <testcase> per gate and scope (device, window, iteration), a <failure> for a gate that
// failed, with the measured value and the threshold in its message. The layout follows the
// common JUnit schema (Jenkins' junit-10.xsd; the tests check it with internal/testkit/junitcheck).
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fpstop/fpstop/internal/outfile"
)

// Case is one gate checked on one scope.
type Case struct {
	// Name is the gate and its threshold, e.g. "fail-under-fps 55".
	Name string
	// Class is the scope: "fpstop.headless.<serial>.<package>", with ".window.<name>" or
	// ".iteration.<n>" where the gate applies to one window or iteration.
	Class string
	// Failure is the message of a failed gate ("" = passed); Detail is shown under it.
	Failure string
	Detail  string
	// Output is what the gate measured, shown for passed cases too.
	Output string
	Time   time.Duration
}

// Suite is one command's gates.
type Suite struct {
	Name      string
	Timestamp time.Time
	Time      time.Duration
	Cases     []Case
}

type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Time     string     `xml:"time,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name      string    `xml:"name,attr"`
	Tests     int       `xml:"tests,attr"`
	Failures  int       `xml:"failures,attr"`
	Errors    int       `xml:"errors,attr"`
	Skipped   int       `xml:"skipped,attr"`
	Time      string    `xml:"time,attr"`
	Timestamp string    `xml:"timestamp,attr"`
	Hostname  string    `xml:"hostname,attr"`
	Cases     []xmlCase `xml:"testcase"`
}

type xmlCase struct {
	Name      string      `xml:"name,attr"`
	Classname string      `xml:"classname,attr"`
	Time      string      `xml:"time,attr"`
	Failure   *xmlFailure `xml:"failure,omitempty"`
	SystemOut string      `xml:"system-out,omitempty"`
}

type xmlFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// Encode writes the suites as a JUnit XML document.
func Encode(w io.Writer, suites ...Suite) error {
	doc := xmlSuites{Name: "fpstop"}
	var total time.Duration
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	for _, s := range suites {
		xs := xmlSuite{Name: s.Name, Tests: len(s.Cases), Time: secs(s.Time), Hostname: host,
			Timestamp: s.Timestamp.UTC().Format("2006-01-02T15:04:05")}
		for _, c := range s.Cases {
			xc := xmlCase{Name: c.Name, Classname: c.Class, Time: secs(c.Time), SystemOut: c.Output}
			if c.Failure != "" {
				xc.Failure = &xmlFailure{Message: c.Failure, Type: "gate", Text: c.Detail}
				xs.Failures++
			}
			xs.Cases = append(xs.Cases, xc)
		}
		doc.Tests += xs.Tests
		doc.Failures += xs.Failures
		total += s.Time
		doc.Suites = append(doc.Suites, xs)
	}
	doc.Time = secs(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteFile writes the suites to path (an existing file is replaced: CI reruns write the same
// report path).
func WriteFile(path string, suites ...Suite) error {
	f, err := outfile.Create(path, true)
	if err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	if err := Encode(f, suites...); err != nil {
		f.Close()
		return fmt.Errorf("junit report %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("junit report %s: %w", path, err)
	}
	return nil
}
