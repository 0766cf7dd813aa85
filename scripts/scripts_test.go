// Package scripts holds the release and CI shell scripts; its tests check them and the release
// configuration they drive without running goreleaser (scripts/goreleaser-check.sh does that).
package scripts

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func shellScripts(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"completions.sh", "goreleaser-check.sh"} {
		if !slices.Contains(files, want) {
			t.Errorf("scripts/%s is missing", want)
		}
	}
	return files
}

// TestBashSyntax: `bash -n` accepts every script, and each is executable (.ci/run runs
// goreleaser-check.sh only when it is; goreleaser runs completions.sh directly).
func TestBashSyntax(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the scripts run on Unix-like systems")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed to check the scripts")
	}
	for _, f := range shellScripts(t) {
		// -short starts no process: the syntax check is left to the full suite
		if !testing.Short() {
			if out, err := exec.Command(bash, "-n", f).CombinedOutput(); err != nil {
				t.Errorf("bash -n %s: %v\n%s", f, err, out)
			}
		}
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o111 != 0o111 {
			t.Errorf("%s is not executable (mode %v)", f, st.Mode().Perm())
		}
		b, _ := os.ReadFile(f)
		if !strings.HasPrefix(string(b), "#!/usr/bin/env bash\n") {
			t.Errorf("%s: want a #!/usr/bin/env bash first line", f)
		}
		if !strings.Contains(string(b), "set -euo pipefail") {
			t.Errorf("%s: want set -euo pipefail", f)
		}
	}
}

// The parts of .goreleaser.yaml the tests look at.
type releaseConfig struct {
	Version int `yaml:"version"`
	Before  struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		Main         string   `yaml:"main"`
		Binary       string   `yaml:"binary"`
		Env          []string `yaml:"env"`
		Goos         []string `yaml:"goos"`
		Goarch       []string `yaml:"goarch"`
		Flags        []string `yaml:"flags"`
		Ldflags      []string `yaml:"ldflags"`
		ModTimestamp string   `yaml:"mod_timestamp"`
	} `yaml:"builds"`
	Archives []map[string]yaml.Node `yaml:"archives"`
	Nfpms    []struct {
		Formats  []string `yaml:"formats"`
		Bindir   string   `yaml:"bindir"`
		Contents []struct {
			Src, Dst, Packager string
		} `yaml:"contents"`
	} `yaml:"nfpms"`
	Changelog struct {
		Filters struct {
			Exclude []string `yaml:"exclude"`
		} `yaml:"filters"`
	} `yaml:"changelog"`
	Release struct {
		Draft  bool `yaml:"draft"`
		Github struct {
			Owner, Name string
		} `yaml:"github"`
	} `yaml:"release"`
	Brews any `yaml:"brews"`
}

func loadReleaseConfig(t *testing.T) (releaseConfig, string) {
	t.Helper()
	b, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c releaseConfig
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c, string(b)
}

// TestGoreleaserConfig checks what the issue asks of the release (goreleaser check only proves
// the file is valid).
func TestGoreleaserConfig(t *testing.T) {
	c, text := loadReleaseConfig(t)
	if c.Version != 2 {
		t.Errorf("version = %d, want 2", c.Version)
	}
	if !slices.Contains(c.Before.Hooks, "./scripts/completions.sh") {
		t.Errorf("before.hooks = %v: want ./scripts/completions.sh", c.Before.Hooks)
	}
	for _, h := range c.Before.Hooks {
		if strings.Contains(h, "go mod tidy") || strings.Contains(h, "go get") {
			t.Errorf("before hook %q would modify go.mod", h)
		}
	}
	if len(c.Builds) != 1 {
		t.Fatalf("builds: %d, want 1", len(c.Builds))
	}
	b := c.Builds[0]
	if b.Main != "." || b.Binary != "fpstop" {
		t.Errorf("main %q binary %q", b.Main, b.Binary)
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") || b.ModTimestamp == "" {
		t.Errorf("want CGO_ENABLED=0, -trimpath and mod_timestamp: env %v flags %v mod_timestamp %q", b.Env, b.Flags, b.ModTimestamp)
	}
	slices.Sort(b.Goos)
	slices.Sort(b.Goarch)
	if !slices.Equal(b.Goos, []string{"darwin", "linux", "windows"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
		t.Errorf("targets %v × %v", b.Goos, b.Goarch)
	}
	ld := strings.Join(b.Ldflags, " ")
	for _, want := range []string{"-s", "-w", "-X main.version={{.Version}}", "-X main.commit={{.ShortCommit}}", "-X main.date={{.CommitDate}}"} {
		if !strings.Contains(ld, want) {
			t.Errorf("ldflags %q lack %q", ld, want)
		}
	}

	// deprecated keys make `goreleaser check` exit 2
	if c.Brews != nil {
		t.Error("brews: is deprecated (homebrew_casks)")
	}
	if len(c.Archives) != 1 {
		t.Fatalf("archives: %d, want 1", len(c.Archives))
	}
	if _, ok := c.Archives[0]["format"]; ok {
		t.Error("archives.format is deprecated: use formats")
	}
	if strings.Contains(text, "\n        format: ") || strings.Contains(text, "\n    format: ") {
		t.Error("a singular format: key is deprecated: use formats")
	}
	var fileNodes []yaml.Node // "path" or {src: path, info: …}
	if n, ok := c.Archives[0]["files"]; !ok || n.Decode(&fileNodes) != nil {
		t.Fatal("archives.files missing")
	}
	var files []string
	for _, n := range fileNodes {
		var f struct{ Src string }
		if n.Kind == yaml.ScalarNode {
			files = append(files, n.Value)
		} else if n.Decode(&f) == nil {
			files = append(files, f.Src)
		}
	}
	for _, want := range []string{"README.md", "LICENSE", "completions/*", "manpages/*"} {
		if !slices.Contains(files, want) {
			t.Errorf("archives.files %v lack %s", files, want)
		}
	}

	if len(c.Nfpms) != 1 {
		t.Fatalf("nfpms: %d, want 1", len(c.Nfpms))
	}
	n := c.Nfpms[0]
	if n.Bindir != "/usr/bin" || !slices.Contains(n.Formats, "deb") || !slices.Contains(n.Formats, "rpm") {
		t.Errorf("nfpms: bindir %q formats %v", n.Bindir, n.Formats)
	}
	script, err := os.ReadFile("completions.sh")
	if err != nil {
		t.Fatal(err)
	}
	dsts := map[string]bool{}
	for _, ct := range n.Contents {
		dsts[ct.Dst] = true
		base := filepath.Base(ct.Src)
		switch {
		case strings.HasPrefix(ct.Src, "./completions/"):
			ext := strings.TrimPrefix(filepath.Ext(base), ".")
			if !strings.Contains(string(script), "completions/fpstop.$ext") || !slices.Contains([]string{"bash", "zsh", "fish"}, ext) {
				t.Errorf("nfpm content %s is not written by completions.sh", ct.Src)
			}
		case strings.HasPrefix(ct.Src, "./manpages/"):
			if base != "fpstop.1.gz" || !strings.Contains(string(script), "manpages/fpstop.1.gz") {
				t.Errorf("nfpm content %s is not written by completions.sh", ct.Src)
			}
		}
	}
	for _, want := range []string{
		"/usr/share/bash-completion/completions/fpstop",
		"/usr/share/zsh/vendor-completions/_fpstop",
		"/usr/share/fish/vendor_completions.d/fpstop.fish",
		"/usr/share/man/man1/fpstop.1.gz",
	} {
		if !dsts[want] {
			t.Errorf("nfpms install nothing to %s", want)
		}
	}

	for _, prefix := range []string{"docs", "test", "chore"} {
		found := false
		for _, e := range c.Changelog.Filters.Exclude {
			found = found || strings.HasPrefix(e, "^"+prefix)
		}
		if !found {
			t.Errorf("changelog does not exclude %s commits", prefix)
		}
	}
	if !c.Release.Draft || c.Release.Github.Owner != "fpstop" || c.Release.Github.Name != "fpstop" {
		t.Errorf("release: draft %v github %+v", c.Release.Draft, c.Release.Github)
	}
}

// TestMainVars: the variables the ldflags set exist in package main with type string (-X
// silently does nothing for a name that does not exist).
func TestMainVars(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../main.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name.Name != "main" {
		t.Fatalf("main.go is package %s", f.Name.Name)
	}
	found := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "string" || len(vs.Values) != 0 {
				continue
			}
			for _, n := range vs.Names {
				found[n.Name] = true
			}
		}
	}
	for _, v := range []string{"version", "commit", "date"} {
		if !found[v] {
			t.Errorf("main.go has no package-level `var %s string` for -X main.%s", v, v)
		}
	}
}

// TestGitignore: generated release files are never committed.
func TestGitignore(t *testing.T) {
	b, err := os.ReadFile("../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for _, want := range []string{"/dist/", "/completions/", "/manpages/"} {
		if !slices.Contains(lines, want) {
			t.Errorf(".gitignore lacks %s", want)
		}
	}
}

// TestBenchPeersFiles: every scripts/peers file bench-peers.sh names exists, and the lnav logcat
// format it installs is valid JSON whose pattern reads its own samples (lnav refuses a format
// whose samples do not match).
func TestBenchPeersFiles(t *testing.T) {
	b, err := os.ReadFile("bench-peers.sh")
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`scripts/peers/[\w.-]+`).FindAllString(string(b), -1)
	if len(refs) < 4 {
		t.Errorf("bench-peers.sh names %d peer files, want the lnav format and query and the two Python drivers", len(refs))
	}
	for _, r := range refs {
		if _, err := os.Stat(strings.TrimPrefix(r, "scripts/")); err != nil {
			t.Errorf("bench-peers.sh needs %s: %v", r, err)
		}
	}
	var format struct {
		Regex map[string]struct {
			Pattern string `json:"pattern"`
		} `json:"regex"`
		Sample []struct {
			Line string `json:"line"`
		} `json:"sample"`
	}
	raw, err := os.ReadFile("peers/lnav-logcat-threadtime.json")
	if err != nil {
		t.Fatal(err)
	}
	var formats map[string]json.RawMessage
	if err := json.Unmarshal(raw, &formats); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(formats["logcat_threadtime"], &format); err != nil {
		t.Fatal(err)
	}
	f := format
	if len(f.Sample) == 0 {
		t.Fatal("no logcat_threadtime format with samples")
	}
	re := regexp.MustCompile(f.Regex["std"].Pattern)
	for _, s := range f.Sample {
		m := re.FindStringSubmatch(s.Line)
		if m == nil {
			t.Errorf("the pattern does not read its sample %q", s.Line)
			continue
		}
		if tid := m[re.SubexpIndex("tid")]; tid == "" {
			t.Errorf("sample %q: no tid", s.Line)
		}
	}
}
