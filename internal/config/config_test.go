package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// testFlags mirrors the main command's flags (internal/cli/options.go): names, types, defaults.
// The cli package has its own test that DefaultFile round-trips through its real flag set.
type testOpts struct {
	Source, Input, Serial, Package, AdbHost  string
	AdbPort                                  int
	Interval, Refresh, Duration              time.Duration
	Scenario, Truth, Record, RecordDir       string
	Hz, Speed, TargetFPS, SlowMs             float64
	FailUnderFPS, MaxJankPct                 float64
	Seed                                     int64
	RecordRaw, Force, Headless, JSON         bool
	NoMouse, Reset, Debug                    bool
	DropLevels, Theme, Color, Config, Secret string
	SetSlowThreshold                         int
	Old                                      string
}

func testFlags() (*pflag.FlagSet, *testOpts) {
	o := &testOpts{}
	fs := pflag.NewFlagSet("fpstop", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.StringVar(&o.Source, "source", "auto", "where frames come from: auto, sim, gfxinfo, logcat, gfxinfo+logcat")
	fs.StringVar(&o.Input, "input", "", "read a captured gfxinfo dump, logcat text or recording instead of a device (- for stdin)")
	fs.StringVarP(&o.Serial, "serial", "s", "", "device serial (default $ANDROID_SERIAL, or the only device)")
	fs.StringVarP(&o.Package, "package", "p", "", "app package (default: the foreground app)")
	fs.StringVar(&o.AdbHost, "adb-host", "", "adb server host")
	fs.IntVar(&o.AdbPort, "adb-port", 0, "adb server port")
	fs.DurationVar(&o.Interval, "interval", 0, "gfxinfo poll interval (default: adaptive to the refresh rate)")
	fs.DurationVar(&o.Refresh, "refresh", 250*time.Millisecond, "screen refresh period")
	fs.StringVar(&o.Scenario, "scenario", "demo", "simulator scenario (implies --source sim)")
	fs.Float64Var(&o.Hz, "hz", 60, "simulator refresh rate in Hz (implies --source sim)")
	fs.Int64Var(&o.Seed, "seed", 1, "simulator seed (implies --source sim)")
	fs.Float64Var(&o.Speed, "speed", 1, "simulator/replay speed")
	fs.StringVar(&o.Truth, "truth", "", "write the simulator's ground truth as JSON Lines to FILE")
	fs.StringVar(&o.Record, "record", "", "record the session to FILE")
	fs.StringVar(&o.RecordDir, "record-dir", "", "directory for recordings started with r")
	fs.BoolVar(&o.RecordRaw, "record-raw", false, "also keep the source's raw text in NAME.raw.gz")
	fs.BoolVar(&o.Force, "force", false, "overwrite an existing recording file")
	fs.BoolVar(&o.Headless, "headless", false, "no screen: run, then print a report")
	fs.DurationVar(&o.Duration, "duration", 0, "stop after this long")
	fs.BoolVar(&o.JSON, "json", false, "with --headless: print the report as JSON")
	fs.Float64Var(&o.TargetFPS, "target-fps", 55, "FPS target the current value is coloured against")
	fs.Float64Var(&o.SlowMs, "slow-ms", 0, "list main-thread messages whose max reaches this many ms")
	fs.StringVar(&o.DropLevels, "drop-levels", "3,9,24,42", "NORMAL,MIDDLE,HIGH,FROZEN thresholds in 60 Hz frames")
	fs.StringVar(&o.Theme, "theme", "dark", "colour theme")
	fs.StringVar(&o.Color, "color", "auto", "colour output: auto, always, never")
	fs.BoolVar(&o.NoMouse, "no-mouse", false, "do not capture the mouse")
	fs.Float64Var(&o.FailUnderFPS, "fail-under-fps", 0, "gate: exit 1 when fps is below N")
	fs.Float64Var(&o.MaxJankPct, "max-jank-pct", 0, "gate: exit 1 when the janky-frame share exceeds P %")
	fs.BoolVar(&o.Reset, "reset", false, "send gfxinfo 'reset' with each poll")
	fs.IntVar(&o.SetSlowThreshold, "set-slow-threshold", 0, "run setprop log.looper.<uid>.main.slow MS")
	fs.StringVar(&o.Config, "config", "", "config `file`")
	fs.BoolVar(&o.Debug, "debug", false, "verbose log file; print its path on exit")
	fs.StringVar(&o.Secret, "secret", "", "a hidden flag")
	_ = fs.MarkHidden("secret")
	fs.StringVar(&o.Old, "old", "", "a deprecated flag")
	_ = fs.MarkDeprecated("old", "use --theme")
	fs.BoolP("help", "h", false, "help for fpstop") // cobra adds these
	fs.BoolP("version", "v", false, "version for fpstop")
	return fs, o
}

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeHome points the home and user-config-directory hooks at temporary directories.
func fakeHome(t *testing.T) (home, userCfg string) {
	t.Helper()
	home = t.TempDir()
	userCfg = filepath.Join(home, "userconfig")
	oldCfg, oldHome := userConfigDir, userHomeDir
	userConfigDir = func() (string, error) { return userCfg, nil }
	userHomeDir = func() (string, error) { return home, nil }
	t.Cleanup(func() { userConfigDir, userHomeDir = oldCfg, oldHome })
	return home, userCfg
}

func TestResolve(t *testing.T) {
	home, userCfg := fakeHome(t)
	dir := t.TempDir()
	flagFile := writeFile(t, dir, "flag.yaml", "theme: light\n")
	envFile := writeFile(t, dir, "env.yaml", "theme: light\n")
	homeFile := writeFile(t, home, "mine.yaml", "")
	xdg := filepath.Join(dir, "xdg")
	missing := filepath.Join(dir, "missing.yaml")

	tests := []struct {
		name     string
		flag     string
		env      map[string]string
		wantPath string
		wantFrom string
		wantErr  string
	}{
		{name: "flag", flag: flagFile, wantPath: flagFile, wantFrom: FromFlag},
		{name: "flag wins over env and XDG", flag: flagFile,
			env:      map[string]string{"FPSTOP_CONFIG": envFile, "XDG_CONFIG_HOME": xdg},
			wantPath: flagFile, wantFrom: FromFlag},
		{name: "flag missing is an error", flag: missing, env: map[string]string{"FPSTOP_CONFIG": envFile},
			wantErr: "missing.yaml (from --config) does not exist"},
		{name: "flag naming a directory", flag: dir, wantErr: "(from --config) is a directory"},
		{name: "flag with ~", flag: "~/mine.yaml", wantPath: homeFile, wantFrom: FromFlag},
		{name: "env", env: map[string]string{"FPSTOP_CONFIG": envFile, "XDG_CONFIG_HOME": xdg},
			wantPath: envFile, wantFrom: FromEnv},
		{name: "env missing is an error", env: map[string]string{"FPSTOP_CONFIG": missing},
			wantErr: "(from $FPSTOP_CONFIG) does not exist"},
		{name: "env with ~", env: map[string]string{"FPSTOP_CONFIG": "~/mine.yaml"}, wantPath: homeFile, wantFrom: FromEnv},
		{name: "XDG, file missing is fine", env: map[string]string{"XDG_CONFIG_HOME": xdg},
			wantPath: filepath.Join(xdg, "fpstop", "config.yaml"), wantFrom: FromXDG},
		{name: "relative XDG is ignored", env: map[string]string{"XDG_CONFIG_HOME": "rel/dir"},
			wantPath: filepath.Join(userCfg, "fpstop", "config.yaml"), wantFrom: FromUserDir},
		{name: "user config dir, file missing is fine",
			wantPath: filepath.Join(userCfg, "fpstop", "config.yaml"), wantFrom: FromUserDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			path, from, err := Resolve(tt.flag, getenv)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if path != tt.wantPath || from != tt.wantFrom {
				t.Errorf("Resolve = %q, %q; want %q, %q", path, from, tt.wantPath, tt.wantFrom)
			}
		})
	}
}

func TestResolveNoUserConfigDir(t *testing.T) {
	fakeHome(t)
	userConfigDir = func() (string, error) { return "", errors.New("neither $XDG_CONFIG_HOME nor $HOME are defined") }
	path, from, err := Resolve("", func(string) string { return "" })
	if path != "" || from != "" || err != nil {
		t.Errorf("Resolve = %q, %q, %v; want no configuration and no error", path, from, err)
	}
	f, err := Load(context.Background(), path)
	if err != nil || f.Found || len(f.Entries) != 0 {
		t.Errorf("Load(\"\") = %+v, %v; want an empty configuration", f, err)
	}
}

// TestResolveRealUserConfigDir checks the last fallback against os.UserConfigDir itself.
func TestResolveRealUserConfigDir(t *testing.T) {
	dir, err := os.UserConfigDir()
	if err != nil {
		t.Skipf("no user config dir here: %v", err)
	}
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" || k == EnvVar {
			return ""
		}
		return os.Getenv(k)
	}
	path, from, err := Resolve("", getenv)
	if err != nil {
		t.Fatal(err)
	}
	// On Linux os.UserConfigDir itself reads XDG_CONFIG_HOME, which Resolve has already taken.
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return
	}
	if want := filepath.Join(dir, "fpstop", "config.yaml"); path != want || from != FromUserDir {
		t.Errorf("Resolve = %q, %q; want %q, %q", path, from, want, FromUserDir)
	}
}

func TestThemeDir(t *testing.T) {
	p := filepath.Join("home", "u", ".config", "fpstop", "config.yaml")
	if got, want := ThemeDir(p), filepath.Join("home", "u", ".config", "fpstop", "themes"); got != want {
		t.Errorf("ThemeDir = %q, want %q", got, want)
	}
	if got := ThemeDir(""); got != "" {
		t.Errorf(`ThemeDir("") = %q, want ""`, got)
	}
}

func TestLoad(t *testing.T) {
	home, _ := fakeHome(t)
	tests := []struct {
		name     string
		content  string
		want     []Entry
		wantErr  string // substring
		wantLine int    // of the *Error, when wantErr is set
	}{
		{name: "the documented example", content: `# my settings
target-fps: 50
theme: light   # a comment
drop-levels: "3,9,24,42"
refresh: 500ms
record-dir: ~/recordings
record-raw: yes
serial: 'emulator-5554'
`, want: []Entry{
			{Key: "target-fps", Value: "50", Line: 2},
			{Key: "theme", Value: "light", Line: 3},
			{Key: "drop-levels", Value: "3,9,24,42", Line: 4},
			{Key: "refresh", Value: "500ms", Line: 5},
			{Key: "record-dir", Value: filepath.Join(home, "recordings"), Line: 6},
			{Key: "record-raw", Value: "yes", Line: 7},
			{Key: "serial", Value: "emulator-5554", Line: 8},
		}},
		{name: "empty file", content: ""},
		{name: "only comments", content: "# theme: light\n\n# refresh: 1s\n"},
		{name: "explicit null document", content: "~\n"},
		{name: "~ alone in a path flag is home", content: "record-dir: ~\n",
			want: []Entry{{Key: "record-dir", Value: home, Line: 1}}},
		{name: "~ elsewhere is kept", content: "package: ~foo\nrecord-dir: a/~/b\n",
			want: []Entry{{Key: "package", Value: "~foo", Line: 1}, {Key: "record-dir", Value: "a/~/b", Line: 2}}},
		{name: "theme path with ~", content: "theme: ~/themes/mine.yaml\n",
			want: []Entry{{Key: "theme", Value: filepath.Join(home, "themes", "mine.yaml"), Line: 1}}},
		{name: "empty string value", content: "serial: \"\"\n", want: []Entry{{Key: "serial", Value: "", Line: 1}}},
		{name: "alias", content: "hz: &rate 120\ntarget-fps: *rate\n",
			want: []Entry{{Key: "hz", Value: "120", Line: 1}, {Key: "target-fps", Value: "120", Line: 2}}},
		{name: "not a mapping", content: "- theme\n- light\n", wantErr: "want a mapping of flag names to values", wantLine: 1},
		{name: "a bare word", content: "light\n", wantErr: `found the value "light"`, wantLine: 1},
		{name: "list value", content: "theme: dark\ndrop-levels: [3, 9, 24, 42]\n",
			wantErr: `drop-levels: want one value, found a list (write it as on the command line, e.g. "3,9,24,42")`, wantLine: 2},
		{name: "mapping value", content: "theme:\n  name: light\n", wantErr: "theme: want one value, found a mapping", wantLine: 2},
		{name: "null value", content: "theme: dark\nserial:\n", wantErr: "serial: no value", wantLine: 2},
		{name: "duplicate key", content: "theme: dark\nrefresh: 1s\ntheme: light\n", wantErr: "theme: set twice (first on line 1)", wantLine: 3},
		{name: "non-scalar key", content: "[a, b]: 1\n", wantErr: "want a flag name as the key", wantLine: 1},
		{name: "two documents", content: "theme: dark\n---\ntheme: light\n", wantErr: "more than one YAML document", wantLine: 2},
		{name: "syntax error", content: "theme: dark\n  refresh: 1s\n", wantErr: "line 2"},
		{name: "tab indentation", content: "theme: dark\n\trefresh: 1s\n", wantErr: "tab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "config.yaml", tt.content)
			f, err := Load(context.Background(), path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				if !strings.HasPrefix(err.Error(), path) {
					t.Errorf("error %q does not start with the file's path", err)
				}
				var ce *Error
				if tt.wantLine != 0 && (!errors.As(err, &ce) || ce.Line != tt.wantLine) {
					t.Errorf("error %q: want line %d", err, tt.wantLine)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !f.Found || f.Path != path {
				t.Errorf("Found = %v, Path = %q", f.Found, f.Path)
			}
			if !reflect.DeepEqual(f.Entries, tt.want) {
				t.Errorf("entries:\n got %+v\nwant %+v", f.Entries, tt.want)
			}
		})
	}
}

func TestLoadMissingAndUnreadable(t *testing.T) {
	dir := t.TempDir()
	f, err := Load(context.Background(), filepath.Join(dir, "nope.yaml"))
	if err != nil || f.Found || f.Entries != nil {
		t.Errorf("missing file: %+v, %v; want an empty configuration", f, err)
	}
	if _, err := Load(context.Background(), dir); err == nil {
		t.Error("Load(context.Background(), a directory) succeeded")
	}
}

func TestFileGet(t *testing.T) {
	f := File{Entries: []Entry{{Key: "theme", Value: "light", Line: 1}}}
	if e, ok := f.Get("theme"); !ok || e.Value != "light" {
		t.Errorf("Get(theme) = %+v, %v", e, ok)
	}
	if _, ok := f.Get("refresh"); ok {
		t.Error("Get(refresh) found an entry")
	}
}

// loadString writes content to a temporary config.yaml and loads it.
func loadString(t *testing.T, content string) File {
	t.Helper()
	f, err := Load(context.Background(), writeFile(t, t.TempDir(), "config.yaml", content))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestApply(t *testing.T) {
	home, _ := fakeHome(t)
	fs, o := testFlags()
	if err := fs.Parse([]string{"--theme", "high-contrast", "--target-fps=60", "-s", "cmdline-serial"}); err != nil {
		t.Fatal(err)
	}
	f := loadString(t, `target-fps: 50
theme: light
drop-levels: "2,8,20,40"
refresh: 500ms
record-dir: ~/recordings
serial: file-serial
hz: 120
record-raw: on
no-mouse: true
debug: false
seed: 0x10
fail-under-fps: 5e1
`)
	if err := Apply(fs, f); err != nil {
		t.Fatal(err)
	}
	// the command line wins
	if o.Theme != "high-contrast" || o.TargetFPS != 60 || o.Serial != "cmdline-serial" {
		t.Errorf("command-line flags overridden: theme=%q target-fps=%v serial=%q", o.Theme, o.TargetFPS, o.Serial)
	}
	// the file sets the rest
	if o.DropLevels != "2,8,20,40" || o.Refresh != 500*time.Millisecond || o.Hz != 120 ||
		o.RecordDir != filepath.Join(home, "recordings") || !o.RecordRaw || !o.NoMouse || o.Debug ||
		o.Seed != 16 || o.FailUnderFPS != 50 {
		t.Errorf("file values not applied: %+v", *o)
	}
	// untouched flags keep their defaults
	if o.Source != "auto" || o.Scenario != "demo" || o.Color != "auto" {
		t.Errorf("defaults changed: %+v", *o)
	}
	// Changed still means "on the command line"
	for _, name := range []string{"hz", "refresh", "drop-levels", "record-dir"} {
		if fs.Changed(name) {
			t.Errorf("%s: Changed after Apply; want false (set from the file)", name)
		}
	}
	for _, name := range []string{"theme", "target-fps", "serial"} {
		if !fs.Changed(name) {
			t.Errorf("%s: not Changed; it was on the command line", name)
		}
	}
	// the file's values are annotated with where they came from; command-line ones are not
	if got := fs.Lookup("refresh").Annotations[Annotation]; len(got) != 1 || got[0] != f.Path+":4" {
		t.Errorf("refresh annotation = %v, want [%s:4]", got, f.Path)
	}
	if got := fs.Lookup("theme").Annotations[Annotation]; got != nil {
		t.Errorf("theme annotation = %v; it came from the command line", got)
	}
}

func TestApplyErrors(t *testing.T) {
	fakeHome(t)
	tests := []struct {
		name    string
		content string
		line    int
		want    []string // substrings of the error
	}{
		{name: "unknown key with a typo", content: "theme: dark\ntaget-fps: 50\n", line: 2,
			want: []string{`taget-fps: unknown key`, "did you mean target-fps?"}},
		{name: "underscores", content: "target_fps: 50\n", line: 1, want: []string{"did you mean target-fps?"}},
		{name: "capitals", content: "Theme: light\n", line: 1, want: []string{"did you mean theme?"}},
		{name: "a shorthand", content: "s: emulator-5554\n", line: 1, want: []string{"did you mean serial?"}},
		{name: "several matches", content: "record-di: x\n", line: 1, want: []string{"did you mean record-dir"}},
		{name: "prefix", content: "drop: 1,2,3,4\n", line: 1, want: []string{"did you mean drop-levels?"}},
		{name: "nothing close", content: "colour-scheme-of-doom: 1\n", line: 1, want: []string{"unknown key: not an fpstop flag"}},
		{name: "hidden flag", content: "secret: x\n", line: 1, want: []string{"secret: unknown key"}},
		{name: "deprecated flag", content: "old: x\n", line: 1, want: []string{"old: deprecated: use --theme"}},
		{name: "bad float", content: "target-fps: fast\n", line: 1,
			want: []string{`target-fps: invalid value "fast": invalid syntax (want a number)`}},
		{name: "duration without unit", content: "theme: dark\nrefresh: 500\n", line: 2,
			want: []string{`refresh: invalid value "500"`, "missing unit", "want a duration such as 500ms"}},
		{name: "bad bool", content: "debug: maybe\n", line: 1, want: []string{`debug: invalid value "maybe"`, "(want true or false)"}},
		{name: "bad int", content: "adb-port: 1.5\n", line: 1, want: []string{`adb-port: invalid value "1.5"`, "(want a whole number)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, _ := testFlags()
			f := loadString(t, tt.content)
			err := Apply(fs, f)
			if err == nil {
				t.Fatal("Apply succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.Line != tt.line || ce.Path != f.Path {
				t.Errorf("error %q: want a *Error for %s line %d", err, f.Path, tt.line)
			}
			if !strings.HasPrefix(err.Error(), f.Path+":") {
				t.Errorf("error %q does not start with path:line", err)
			}
		})
	}
}

func TestApplyRefused(t *testing.T) {
	fakeHome(t)
	for key := range Refused {
		t.Run(key, func(t *testing.T) {
			fs, _ := testFlags()
			val := "x"
			if fl := fs.Lookup(key); fl != nil && fl.Value.Type() == "bool" {
				val = "true"
			}
			err := Apply(fs, loadString(t, "theme: light\n"+key+": "+val+"\n"))
			if err == nil || !strings.Contains(err.Error(), key+": cannot be set in the configuration file") {
				t.Fatalf("err = %v, want a refusal", err)
			}
			if fs.Lookup("theme").Value.String() != "dark" {
				t.Error("a refused key still let the file's other settings through")
			}
		})
	}
}

// TestApplyChecksKeysFirst: a bad key anywhere sets nothing at all.
func TestApplyChecksKeysFirst(t *testing.T) {
	fakeHome(t)
	fs, o := testFlags()
	err := Apply(fs, loadString(t, "theme: light\nrefresh: 1s\nbogus: 1\n"))
	if err == nil {
		t.Fatal("Apply succeeded")
	}
	if o.Theme != "dark" || o.Refresh != 250*time.Millisecond {
		t.Errorf("settings applied despite the error: theme=%q refresh=%v", o.Theme, o.Refresh)
	}
}

func TestApplyEmpty(t *testing.T) {
	fs, o := testFlags()
	if err := Apply(fs, File{}); err != nil {
		t.Fatal(err)
	}
	if o.Theme != "dark" {
		t.Errorf("theme = %q", o.Theme)
	}
}

func TestErrorFormat(t *testing.T) {
	for _, tt := range []struct {
		e    Error
		want string
	}{
		{Error{Path: "c.yaml", Line: 3, Key: "theme", Msg: "bad"}, "c.yaml:3: theme: bad"},
		{Error{Path: "c.yaml", Msg: "bad"}, "c.yaml: bad"},
		{Error{Path: "c.yaml", Line: 1, Msg: "bad"}, "c.yaml:1: bad"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"taget-fps", "target-fps", 1}, {"kitten", "sitting", 3}, {"theme", "theme", 0}} {
		if got := levenshtein(tt.a, tt.b); got != tt.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}
