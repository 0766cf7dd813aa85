package limits

import (
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is the import path every in-module import starts with.
const module = "github.com/fpstop/fpstop"

// flowRule is one direction the data may not flow: packages under from (a module-relative
// directory) must not import anything under one of the never paths. A never path without a dot
// is module-relative; one with a dot is a third-party or standard-library path.
type flowRule struct {
	from  string
	never []string
	why   string
}

// flowRules keep the house's data flow one-way: source → metrics → ui | record, with report/…
// and compare reading recordings after the run and device/ the only package that talks to
// adb. Both ends of a rule are prefixes: "source" covers source/gfxinfo, source/logcat and the
// others, "report" covers report/html and report/trace.
var flowRules = []flowRule{
	{"source", []string{"metrics", "ui", "record", "report", "compare", "themes", "internal/session", "internal/cli"},
		"a source only turns device text into events; what the numbers mean is metrics' job"},
	{"metrics", []string{"ui", "record", "report", "compare", "themes", "device", "internal/session", "internal/cli",
		"source/gfxinfo", "source/logcat", "source/sim", "source/surfaceflinger"},
		"metrics reads events (package source's types), never a parser, a screen or a file format"},
	{"ui", []string{"device", "record", "report", "compare", "internal/session", "internal/cli",
		"source/gfxinfo", "source/logcat", "source/sim", "source/surfaceflinger"},
		"the screen draws snapshots; it never parses device output nor writes recordings"},
	{"record", []string{"metrics", "report", "compare", "ui", "themes", "device", "internal/session", "internal/cli",
		"source/gfxinfo", "source/logcat", "source/sim", "source/surfaceflinger"},
		"a recording holds events, not what they mean: what is computed from it reads it from report/… or compare"},
	{"report", []string{"ui", "device", "internal/session", "internal/cli",
		"source/gfxinfo", "source/logcat", "source/sim", "source/surfaceflinger"},
		"a report is computed from a recording (record, metrics, compare), never from a device, a parser or the screen"},
	{"compare", []string{"report", "ui", "device", "internal/session", "internal/cli"},
		"report/html draws comparisons, so compare sits below report/…: it reads recordings itself"},
	{"themes", []string{"source", "metrics", "ui", "record", "report", "compare", "device"},
		"colours know nothing of frames"},
	{"internal/lab", []string{"ui", "themes", "internal/cli", "internal/testrun"},
		"the multi-device lab measures and reports; its overview screen is ui's, wired by the command line"},
	{"internal/testrun", []string{"ui", "themes", "internal/cli", "internal/lab"},
		"fpstop test measures, records and summarises; it has no screen and picks no source itself"},
	{"internal/exit", []string{"ui", "themes", "device", "metrics", "record", "internal/cli", "internal/lab", "internal/testrun"},
		"exit statuses are shared by every command: they know nothing of what a command does"},
	{"internal/devsource", []string{"metrics", "ui", "themes", "record", "compare", "internal/session", "internal/cli", "internal/lab", "internal/testrun"},
		"opening a device's source is reading the phone: what the numbers mean and how they are shown is downstream"},
	{"internal/capture", []string{"ui", "themes", "device", "internal/cli", "internal/lab", "internal/testrun", "internal/devsource"},
		"a capture is a file: reading one never reaches a phone or a screen"},
	{"internal/export", []string{"ui", "themes", "device", "internal/cli", "internal/lab", "internal/testrun"},
		"exporters read Snapshots, never a device or a screen"},
	{"internal/gate", []string{"ui", "themes", "device", "internal/session", "internal/cli", "internal/lab", "internal/testrun"},
		"the gates read a report; they run nothing"},
}

// harness is where the test harnesses live (the fake phone, the private adb server, the tmux
// driver, the end-to-end suite, the real-capture locator, reference implementations, benchmark
// input generators). Only the harness itself and scripts/ may import it from non-test code: a
// product package that needs one would ship test scaffolding in the binary.
const harness = "internal/testkit"

// harnessUsers are the non-test importers a harness package may have.
var harnessUsers = []string{harness, "scripts"}

// adbTalkers are the only packages that may speak to adb (its client library, a process or a
// socket): device/ itself and the test harnesses, which start a real adb against the fake
// phone, the real binary and tmux.
var adbTalkers = []string{"device", harness}

// adbClient reports whether the import p can reach adb: its client library, starting a process
// or opening a socket (net itself; net/http and the like are not counted).
func adbClient(p string) bool {
	return p == "os/exec" || p == "net" || underAny(p, []string{"github.com/electricbubble/gadb"})
}

// underAny reports whether rel (a module-relative package directory or import path) is one of
// prefixes or below one of them.
func underAny(rel string, prefixes []string) bool {
	for _, p := range prefixes {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// importEdge is one import of one non-test file.
type importEdge struct {
	file string // module-relative path of the importing file
	pkg  string // module-relative directory of the importing package
	path string // the imported path, module-relative when in the module
}

// imports lists the imports of the module's non-test files outside testdata/ and fixture/.
func imports(t *testing.T, root string) []importEdge {
	t.Helper()
	var out []importEdge
	fset := token.NewFileSet()
	for _, file := range sources(t, root) {
		rel, _ := filepath.Rel(root, file)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				t.Fatalf("%s: import %s: %v", rel, spec.Path.Value, err)
			}
			if p == module {
				p = "."
			} else {
				p = strings.TrimPrefix(p, module+"/")
			}
			out = append(out, importEdge{file: rel, pkg: path.Dir(rel), path: p})
		}
	}
	return out
}

// flowViolations returns one line per import against the flow, sorted.
func flowViolations(edges []importEdge) []string {
	var out []string
	for _, e := range edges {
		for _, r := range flowRules {
			if underAny(e.pkg, []string{r.from}) && underAny(e.path, r.never) {
				out = append(out, e.file+" imports "+e.path+": "+r.why)
			}
		}
		if underAny(e.path, []string{harness}) && !underAny(e.pkg, harnessUsers) {
			out = append(out, e.file+" imports "+e.path+": product code never imports a test harness")
		}
		if adbClient(e.path) && !underAny(e.pkg, adbTalkers) && !execForNonAdb(e) {
			out = append(out, e.file+" imports "+e.path+": only device/ talks to adb")
		}
	}
	sort.Strings(out)
	return out
}

// execForNonAdb lists the files that start processes other than adb (a user's test driver
// command for `fpstop test`) or serve a network port that is not adb's (the Prometheus
// endpoint, the key-latency script): each is named, so a new one is a decision, not an accident.
func execForNonAdb(e importEdge) bool {
	switch e.file {
	case "internal/testrun/driver_unix.go", "internal/testrun/driver_other.go", "internal/testrun/iteration.go",
		"internal/export/prom/serve.go",
		"scripts/keylatency/main.go":
		return true
	}
	return false
}

// TestImportFlow: no package imports against source → metrics → ui | record, only device/
// talks to adb, and no product package imports a test harness (internal/testkit/…). It parses
// import blocks only, so it runs in `go test -short`.
func TestImportFlow(t *testing.T) {
	edges := imports(t, moduleRoot(t))
	if len(edges) == 0 {
		t.Fatal("no imports found: the walk is broken")
	}
	for _, v := range flowViolations(edges) {
		t.Error(v)
	}
}

// TestFlowRulesCatchOffenders: the checker on made-up imports, one against each rule and a
// few that are allowed.
func TestFlowRulesCatchOffenders(t *testing.T) {
	bad := []importEdge{
		{"source/gfxinfo/x.go", "source/gfxinfo", "metrics"},
		{"source/x.go", "source", "ui"},
		{"metrics/x.go", "metrics", "ui"},
		{"metrics/x.go", "metrics", "source/logcat"},
		{"ui/x.go", "ui", "source/gfxinfo"},
		{"ui/x.go", "ui", "device"},
		{"record/x.go", "record", "ui"},
		{"record/x.go", "record", "report"},
		{"record/x.go", "record", "metrics"},
		{"compare/x.go", "compare", "report"},
		{"report/html/x.go", "report/html", "device"},
		{"source/x.go", "source", "report/trace"},
		{"source/logcat/x.go", "source/logcat", "os/exec"},
		{"ui/x.go", "ui", "github.com/electricbubble/gadb"},
		{"metrics/x.go", "metrics", "net"},
		{"internal/cli/x.go", "internal/cli", "internal/testkit/fakeadb"},
		{"record/x.go", "record", "internal/testkit"},
		{"x.go", ".", "internal/testkit/realdata"},
		{"internal/lab/x.go", "internal/lab", "ui"},
		{"internal/testrun/x.go", "internal/testrun", "internal/cli"},
		{"internal/devsource/x.go", "internal/devsource", "metrics"},
		{"internal/cli/testrun.go", "internal/cli", "os/exec"}, // the driver lives in internal/testrun
	}
	for _, e := range bad {
		if got := flowViolations([]importEdge{e}); len(got) != 1 {
			t.Errorf("%s importing %s: %d violations, want 1", e.file, e.path, len(got))
		}
	}
	good := []importEdge{
		{"metrics/x.go", "metrics", "source"},
		{"ui/x.go", "ui", "metrics"},
		{"ui/x.go", "ui", "source"},
		{"record/x.go", "record", "source"},
		{"report/x.go", "report", "record"},
		{"report/html/x.go", "report/html", "compare"},
		{"report/html/x.go", "report/html", "themes"},
		{"report/trace/x.go", "report/trace", "report"},
		{"compare/x.go", "compare", "record"},
		{"source/surfaceflinger/x.go", "source/surfaceflinger", "device"},
		{"device/x.go", "device", "os/exec"},
		{"ui/x.go", "ui", "net/http"}, // net/http is not net
		{"internal/cli/x.go", "internal/cli", "ui"},
		{"internal/testkit/adbtest/x.go", "internal/testkit/adbtest", "internal/testkit/fakeadb"},
		{"scripts/benchgen/main.go", "scripts/benchgen", "internal/testkit/benchgen"},
		{"internal/cli/x.go", "internal/cli", "internal/lab"},
		{"internal/lab/x.go", "internal/lab", "internal/session"},
		{"internal/testrun/driver_unix.go", "internal/testrun", "os/exec"},
	}
	for _, e := range good {
		if got := flowViolations([]importEdge{e}); len(got) != 0 {
			t.Errorf("%s importing %s: %v, want none", e.file, e.path, got)
		}
	}
}
