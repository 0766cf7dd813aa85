// Package config is fpstop's configuration file: where it is, what it may say, and how it sets
// the main command's flags.
//
// The file is YAML: a mapping of long flag names, exactly as on the command line, to values
// written as on the command line:
//
//	target-fps: 50
//	theme: light
//	drop-levels: "3,9,24,42"
//	refresh: 500ms
//	record-dir: ~/recordings
//
// Values go through the flag's own parser (pflag's Set), so a file accepts exactly what the
// command line accepts and is checked the same way. A flag given on the command line wins over
// the file. Flags that choose what one run reads or writes, or that change the device, cannot
// be set from the file (see Refused).
//
// The flow in internal/cli, after cobra has parsed the flags and before they are validated:
//
//	path, _, err := config.Resolve(opts.Config, getenv) // --config > $FPSTOP_CONFIG > defaults
//	f, err := config.Load(path)                         // a missing default file is empty
//	err = config.Apply(cmd.Flags(), f)                  // flags already given win
package config

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

// Where a configuration path came from, as Resolve reports it.
const (
	FromFlag    = "--config"
	FromEnv     = "$FPSTOP_CONFIG"
	FromXDG     = "$XDG_CONFIG_HOME"
	FromUserDir = "user config directory"
)

// EnvVar names the environment variable that points at the configuration file.
const EnvVar = "FPSTOP_CONFIG"

// FileName is the configuration file's name in the configuration directory.
const FileName = "config.yaml"

// Annotation is the pflag annotation Apply puts on every flag it sets; its value is
// "<path>:<line>", where the value came from (for `fpstop info` and the debug log).
const Annotation = "fpstop-config"

// Refused lists the flags a configuration file may not set, with the reason given to the user.
// They choose what a single run reads or writes, change its mode, or change state on the device;
// a file that set them would silently do so on every run.
var Refused = map[string]string{
	"config":             "the configuration file cannot name another one",
	"input":              "it chooses what one run reads; give it on the command line",
	"record":             "it names one run's output file; set record-dir instead",
	"truth":              "it names one run's output file; give it on the command line",
	"force":              "overwriting a recording must be asked for on the command line",
	"headless":           "it chooses how one run works; give it on the command line",
	"json":               "it goes with --headless; give it on the command line",
	"duration":           "it limits one run; give it on the command line",
	"reset":              "it wipes the app's counters on the device; give it on the command line",
	"set-slow-threshold": "it changes a setting on the device; give it on the command line",
	"help":               "it is not a setting",
	"version":            "it is not a setting",
}

// pathKeys are the flags whose values are paths: a leading ~ is the home directory.
// (theme is a built-in name or a theme file's path; names never start with ~.)
var pathKeys = map[string]bool{
	"record-dir": true,
	"theme":      true,
	"record":     true,
	"truth":      true,
	"input":      true,
	"config":     true,
}

// Hooks replaced by tests.
var (
	userConfigDir = os.UserConfigDir
	userHomeDir   = os.UserHomeDir
)

// Resolve finds the configuration file: flagPath (--config) if given, else $FPSTOP_CONFIG, else
// $XDG_CONFIG_HOME/fpstop/config.yaml when XDG_CONFIG_HOME is set to an absolute path (on every
// OS, so macOS users can keep ~/.config), else os.UserConfigDir()/fpstop/config.yaml. from says
// which of these applied (FromFlag, FromEnv, FromXDG or FromUserDir).
//
// A file named by --config or $FPSTOP_CONFIG must exist; a default file need not (Load then
// returns an empty configuration), and its path is returned anyway so that ThemeDir and
// `fpstop info` can show it. path is "" only when there is no user configuration directory at
// all (no home directory). A leading ~ in flagPath or $FPSTOP_CONFIG is the home directory.
func Resolve(flagPath string, getenv func(string) string) (path string, from string, err error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	explicit := func(p, from string) (string, string, error) {
		p, err := expandHome(p)
		if err != nil {
			return "", from, fmt.Errorf("config file %s (from %s): %w", p, from, err)
		}
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return p, from, fmt.Errorf("config file %s (from %s) does not exist", p, from)
		case err != nil:
			return p, from, fmt.Errorf("config file %s (from %s): %w", p, from, err)
		case st.IsDir():
			return p, from, fmt.Errorf("config file %s (from %s) is a directory", p, from)
		}
		return p, from, nil
	}
	if flagPath != "" {
		return explicit(flagPath, FromFlag)
	}
	if p := getenv(EnvVar); p != "" {
		return explicit(p, FromEnv)
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "fpstop", FileName), FromXDG, nil
	}
	dir, err := userConfigDir()
	if err != nil || dir == "" {
		return "", "", nil // no home: no configuration, not an error
	}
	return filepath.Join(dir, "fpstop", FileName), FromUserDir, nil
}

// ThemeDir is where user theme files live: the themes directory beside the configuration file
// (e.g. ~/.config/fpstop/themes). "" when configPath is "".
func ThemeDir(configPath string) string {
	if configPath == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(configPath), "themes")
}

// File is a loaded configuration file.
type File struct {
	Path    string  // as given to Load
	Found   bool    // false: there was no file at Path, and the configuration is empty
	Entries []Entry // in file order
}

// Entry is one setting: a flag's long name and its value as command-line text.
type Entry struct {
	Key   string
	Value string // ~ expanded for path flags
	Line  int    // 1-based line in the file
}

// Error is a problem with one line of a configuration file.
type Error struct {
	Path string
	Line int    // 0 when the problem is not on one line
	Key  string // "" when the problem is not about one key
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		fmt.Fprintf(&b, "%s: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Load reads the configuration file at path. A file that does not exist is an empty
// configuration (Found false): Resolve has already refused a missing file that was named
// explicitly. An empty path is an empty configuration too. Load checks the file's shape — a
// mapping of names to single values, each name once — and expands ~ in path flags; whether the
// names are flags and the values valid is for Apply, which has the flags.
//
// The file is read up to MaxSize (a larger one, /dev/zero, a FIFO that never ends, is refused)
// and the read stops when ctx ends (a FIFO nobody writes to, a signal).
func Load(ctx context.Context, path string) (File, error) {
	f := File{Path: path}
	if path == "" {
		return f, nil
	}
	b, err := readBounded(ctx, path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("config file: %w", err)
	}
	f.Found = true
	entries, err := parse(path, b)
	if err != nil {
		return f, err
	}
	f.Entries = entries
	return f, nil
}

// MaxSize is the largest configuration file read (a real one is a few hundred bytes).
const MaxSize = 1 << 20

// readBounded reads at most MaxSize bytes of path on its own goroutine, giving up when ctx
// ends (the goroutine may stay blocked in open(2) on a FIFO; the process is about to exit).
func readBounded(ctx context.Context, path string) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		fh, err := os.Open(path)
		if err != nil {
			done <- result{nil, err}
			return
		}
		defer fh.Close()
		b, err := io.ReadAll(io.LimitReader(fh, MaxSize+1))
		if err == nil && len(b) > MaxSize {
			err = fmt.Errorf("%s is larger than %d MB", path, MaxSize>>20)
		}
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("interrupted while reading %s (a signal, or a FIFO nobody writes to): %w", path, ctx.Err())
	}
}

// parse turns the YAML text of a configuration file into entries.
func parse(path string, b []byte) ([]Entry, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // empty, or only comments
		}
		return nil, &Error{Path: path, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := extra.Line
		if err != nil {
			line = 0
		}
		return nil, &Error{Path: path, Line: line, Msg: "more than one YAML document; a configuration file is one mapping"}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	m := doc.Content[0]
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return nil, nil // a lone "~" or "null"
	}
	if m.Kind != yaml.MappingNode {
		return nil, &Error{Path: path, Line: m.Line,
			Msg: fmt.Sprintf("want a mapping of flag names to values (like \"theme: light\"), found %s", kindName(m))}
	}
	seen := map[string]int{}
	var out []Entry
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag == "!!null" || k.Value == "" {
			return nil, &Error{Path: path, Line: k.Line, Msg: "want a flag name as the key, like \"theme:\""}
		}
		key := k.Value
		if prev, dup := seen[key]; dup {
			return nil, &Error{Path: path, Line: k.Line, Key: key, Msg: fmt.Sprintf("set twice (first on line %d)", prev)}
		}
		seen[key] = k.Line
		for v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		switch {
		case v.Kind == yaml.SequenceNode:
			return nil, &Error{Path: path, Line: v.Line, Key: key,
				Msg: fmt.Sprintf("want one value, found a list (write it as on the command line, e.g. %q)", joinScalars(v))}
		case v.Kind != yaml.ScalarNode:
			return nil, &Error{Path: path, Line: v.Line, Key: key, Msg: fmt.Sprintf("want one value, found %s", kindName(v))}
		case v.Tag == "!!null" && v.Value == "~" && pathKeys[key]:
			// "record-dir: ~" means the home directory, not "no value".
		case v.Tag == "!!null":
			return nil, &Error{Path: path, Line: v.Line, Key: key,
				Msg: "no value; delete the line for the default, or write \"\" for an empty value"}
		}
		val := v.Value
		if pathKeys[key] {
			var err error
			if val, err = expandHome(val); err != nil {
				return nil, &Error{Path: path, Line: v.Line, Key: key, Msg: err.Error()}
			}
		}
		out = append(out, Entry{Key: key, Value: val, Line: k.Line})
	}
	return out, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	default:
		return "something else"
	}
}

func joinScalars(n *yaml.Node) string {
	var parts []string
	for _, c := range n.Content {
		parts = append(parts, c.Value)
	}
	return strings.Join(parts, ",")
}

// expandHome replaces a leading "~" (alone, or followed by a path separator) with the home
// directory. Other values, including "~user", are returned unchanged.
func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !(runtime.GOOS == "windows" && strings.HasPrefix(p, `~\`)) {
		return p, nil
	}
	home, err := userHomeDir()
	if err != nil || home == "" {
		return p, fmt.Errorf("cannot expand ~ in %q: no home directory", p)
	}
	if p == "~" {
		return home, nil
	}
	return filepath.Join(home, p[2:]), nil
}

// Apply sets the flags in fs from f, through each flag's own Set so values are parsed and
// checked exactly as on the command line. Flags already given on the command line (Changed)
// keep their values: the command line wins over the file.
//
// Every key is checked before any flag is set: a key that is not a flag in fs is an error
// naming the line and the closest flag names; a key in Refused is an error giving the reason.
// Hidden and deprecated flags are not settable either.
//
// Flags set from the file are annotated with Annotation ("<path>:<line>") and left with Changed
// false, so Changed still means "given on the command line" (a file's `hz: 120` is the
// simulator's default rate, not a request to run the simulator).
func Apply(fs *pflag.FlagSet, f File) error {
	for _, e := range f.Entries {
		if err := settable(fs, f.Path, e); err != nil {
			return err
		}
	}
	for _, e := range f.Entries {
		fl := fs.Lookup(e.Key)
		if fl.Changed {
			continue
		}
		val := e.Value
		if fl.Value.Type() == "bool" {
			val = normalizeBool(val)
		}
		if err := fs.Set(e.Key, val); err != nil {
			return &Error{Path: f.Path, Line: e.Line, Key: e.Key, Msg: badValue(fl, e.Value, err)}
		}
		fl.Changed = false
		_ = fs.SetAnnotation(e.Key, Annotation, []string{fmt.Sprintf("%s:%d", f.Path, e.Line)})
	}
	return nil
}

// settable reports why e cannot be applied to fs, or nil.
func settable(fs *pflag.FlagSet, path string, e Entry) error {
	if why, refused := Refused[e.Key]; refused {
		return &Error{Path: path, Line: e.Line, Key: e.Key, Msg: "cannot be set in the configuration file: " + why}
	}
	fl := fs.Lookup(e.Key)
	if fl != nil && fl.Deprecated != "" { // (pflag hides deprecated flags too)
		return &Error{Path: path, Line: e.Line, Key: e.Key, Msg: "deprecated: " + fl.Deprecated}
	}
	if fl == nil || fl.Hidden {
		msg := "unknown key: not an fpstop flag"
		if s := suggest(fs, e.Key); len(s) > 0 {
			msg += " (did you mean " + orList(s) + "?)"
		}
		return &Error{Path: path, Line: e.Line, Key: e.Key, Msg: msg}
	}
	return nil
}

// normalizeBool accepts YAML 1.1's yes/no/on/off for boolean flags (pflag wants true/false).
func normalizeBool(s string) string {
	switch strings.ToLower(s) {
	case "yes", "y", "on":
		return "true"
	case "no", "n", "off":
		return "false"
	}
	return s
}

// badValue explains a value the flag rejected.
func badValue(fl *pflag.Flag, val string, err error) string {
	var want string
	switch fl.Value.Type() {
	case "duration":
		want = "a duration such as 500ms, 2s or 1m"
	case "bool":
		want = "true or false"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		want = "a whole number"
	case "float32", "float64":
		want = "a number"
	}
	msg := fmt.Sprintf("invalid value %q: %v", val, cleanErr(err))
	if want != "" {
		msg += " (want " + want + ")"
	}
	return msg
}

// cleanErr drops pflag's/strconv's wording that repeats the value.
func cleanErr(err error) string {
	var ne interface{ Unwrap() error }
	s := err.Error()
	if errors.As(err, &ne) {
		if inner := ne.Unwrap(); inner != nil {
			s = inner.Error()
		}
	}
	if i := strings.LastIndex(s, ": "); i >= 0 && strings.HasPrefix(s, "strconv.") {
		s = s[i+2:]
	}
	return strings.TrimPrefix(s, "time: ")
}

// suggest returns up to three flag names in fs close to key: the same name spelled with another
// case or with underscores, the long name of a shorthand, or a small edit away.
func suggest(fs *pflag.FlagSet, key string) []string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }
	nk := norm(key)
	type cand struct {
		name   string
		d, lev int // d: closeness with the special cases; lev: edit distance, to break ties
	}
	var cs []cand
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden || fl.Name == "help" || fl.Name == "version" {
			return
		}
		nn := norm(fl.Name)
		lev := levenshtein(nk, nn)
		d := lev
		switch {
		case nn == nk || fl.Shorthand != "" && fl.Shorthand == key:
			d = 0
		case len(nk) >= 3 && (strings.HasPrefix(nn, nk) || strings.HasPrefix(nk, nn)):
			d = min(d, 1)
		}
		limit := 2
		if len(nk) <= 3 {
			limit = 1
		}
		if d <= limit {
			cs = append(cs, cand{fl.Name, d, lev})
		}
	})
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		if cs[i].lev != cs[j].lev {
			return cs[i].lev < cs[j].lev
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

func orList(s []string) string {
	switch len(s) {
	case 1:
		return s[0]
	case 2:
		return s[0] + " or " + s[1]
	default:
		return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
	}
}

// levenshtein is the edit distance between a and b (bytes; flag names are ASCII).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
