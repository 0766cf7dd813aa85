package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

// DefaultFile returns a configuration file with every flag in fs that a file may set, each
// commented out with its default value and preceded by its help text, in fs's order. Loaded as
// is it sets nothing; uncommenting a line sets that flag. For `fpstop info --default-config`
// (pass the main command's flags).
func DefaultFile(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString(`# fpstop configuration file (YAML).
#
# fpstop reads --config FILE, else $FPSTOP_CONFIG, else $XDG_CONFIG_HOME/fpstop/config.yaml,
# else fpstop/config.yaml in the user configuration directory (~/.config on Linux,
# ~/Library/Application Support on macOS, %AppData% on Windows).
#
# Each key is a long command-line flag and takes the same values; a flag given on the
# command line wins over this file. Uncomment a line to change a setting. A leading ~ in
# record-dir and theme is the home directory. Settings here only change defaults: hz,
# scenario and seed do not select the simulator as they do on the command line. User theme
# files go in the themes directory beside this file.
`)
	var refused []string
	fs.VisitAll(func(fl *pflag.Flag) {
		if _, ok := Refused[fl.Name]; ok && fl.Name != "help" && fl.Name != "version" && !fl.Hidden {
			refused = append(refused, fl.Name)
		}
	})
	if len(refused) > 0 {
		sort.Strings(refused)
		b.WriteString("#\n")
		writeWrapped(&b, "# ", "Only on the command line: "+strings.Join(refused, ", ")+".")
	}
	fs.VisitAll(func(fl *pflag.Flag) {
		if _, ok := Refused[fl.Name]; ok || fl.Hidden || fl.Deprecated != "" {
			return
		}
		_, usage := pflag.UnquoteUsage(fl)
		b.WriteString("\n")
		writeWrapped(&b, "# ", usage)
		fmt.Fprintf(&b, "# %s: %s\n", fl.Name, defaultValue(fl))
	})
	return b.String()
}

// defaultValue writes fl's default as a YAML value that Load and Apply turn back into it.
func defaultValue(fl *pflag.Flag) string {
	t := fl.Value.Type()
	v := fl.DefValue
	switch {
	case strings.HasSuffix(t, "Slice") || strings.HasSuffix(t, "Array"):
		v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	case t != "string":
		return v // numbers, booleans, durations: plain YAML scalars
	}
	if strings.Contains(v, ",") {
		return strconv.Quote(v) // "3,9,24,42" reads as one value, not a list
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		return strconv.Quote(v)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// writeWrapped writes text as lines of at most 96 columns, each starting with prefix.
func writeWrapped(b *strings.Builder, prefix, text string) {
	const width = 96
	line := prefix
	for _, w := range strings.Fields(text) {
		if len(line) > len(prefix) && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = prefix
		}
		if len(line) > len(prefix) {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
}
