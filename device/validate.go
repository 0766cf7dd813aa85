package device

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// invalidError is a refusal: its message says what was wrong, and errors.Is matches ErrInvalid.
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }

func (e *invalidError) Unwrap() error { return ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

// MaxPackageLen is the longest package name accepted (Android's own limit is 255).
const MaxPackageLen = 255

// ValidPackage checks that name is an Android application package name: dot-separated Java
// identifiers (ASCII letters, digits and '_', each part starting with a letter or '_'), at least
// two parts, at most MaxPackageLen bytes. Everything else — shell metacharacters, blanks,
// quotes, a leading '-' (an option to the command), non-ASCII — is refused, so a name that
// passes can be placed in a shell command as it is. The error wraps ErrInvalid.
func ValidPackage(name string) error {
	switch {
	case name == "":
		return invalidf("invalid package name: empty")
	case len(name) > MaxPackageLen:
		return invalidf("invalid package name %.40q…: longer than %d bytes", name, MaxPackageLen)
	case strings.HasPrefix(name, "-"):
		return invalidf("invalid package name %q: starts with '-'", name)
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !isIdentByte(ch) && ch != '.' {
			// Quote the character, not its first byte ('ä', not 'Ã').
			r, _ := utf8.DecodeRuneInString(name[i:])
			return invalidf("invalid package name %q: contains %q (allowed: letters, digits, '_' and '.')", name, r)
		}
	}
	parts := strings.Split(name, ".")
	if len(parts) < 2 {
		return invalidf("invalid package name %q: no '.' (an app package looks like com.example.app)", name)
	}
	for _, p := range parts {
		if p == "" {
			return invalidf("invalid package name %q: empty part", name)
		}
		if p[0] >= '0' && p[0] <= '9' {
			return invalidf("invalid package name %q: part %q starts with a digit", name, p)
		}
	}
	return nil
}

func isIdentByte(ch byte) bool {
	return ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9'
}

func isDigits(s string) bool {
	if s == "" || len(s) > 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isCount accepts "N" and "N.M" (logcat's -t/-T take a line count or seconds.millis).
func isCount(s string) bool {
	a, b, frac := strings.Cut(s, ".")
	return isDigits(a) && (!frac || isDigits(b))
}

// logcatFormats are the -v format and modifier words of logcat.
var logcatFormats = map[string]bool{
	"brief": true, "long": true, "process": true, "raw": true, "tag": true, "thread": true,
	"threadtime": true, "time": true, "color": true, "descriptive": true, "epoch": true,
	"monotonic": true, "printable": true, "uid": true, "usec": true, "nsec": true, "UTC": true,
	"year": true, "zone": true,
}

// logcatBuffers are the -b buffer names of logcat.
var logcatBuffers = map[string]bool{
	"main": true, "system": true, "radio": true, "events": true, "crash": true, "default": true,
	"all": true, "kernel": true, "stats": true, "security": true,
}

// ValidLogcatArgs checks logcat arguments against an allow-list of read-only options:
// -v FORMAT / -vFORMAT / --format=FORMAT; --pid=N / --pid N; --uid=N; -T N / -t N (N lines or
// seconds as N.M); -b BUFFER / --buffer=BUFFER; -d; -D / --dividers; -s; and filter specs
// TAG[:LEVEL] (TAG of letters, digits and _ . $ -, or *; LEVEL one of V D I W E F S). Options
// that change the device (-c, -G, -P, -f ...) and anything else are refused (ErrInvalid).
func ValidLogcatArgs(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", invalidf("logcat option %s needs a value", a)
			}
			i++
			return args[i], nil
		}
		var err error
		switch {
		case a == "-v" || a == "--format":
			var v string
			if v, err = next(); err == nil && !logcatFormats[v] {
				err = invalidf("unknown logcat format %q", v)
			}
		case strings.HasPrefix(a, "--format="), strings.HasPrefix(a, "-v") && len(a) > 2:
			v := strings.TrimPrefix(strings.TrimPrefix(a, "--format="), "-v")
			if !logcatFormats[v] {
				err = invalidf("unknown logcat format %q", v)
			}
		case a == "--pid" || a == "-T" || a == "-t":
			var v string
			if v, err = next(); err == nil && !isCount(v) {
				err = invalidf("logcat %s wants a number, not %q", a, v)
			}
		case strings.HasPrefix(a, "--pid="), strings.HasPrefix(a, "--uid="):
			if _, v, _ := strings.Cut(a, "="); !isDigits(v) {
				err = invalidf("logcat %q wants a number", a)
			}
		case a == "-b" || a == "--buffer":
			var v string
			if v, err = next(); err == nil && !logcatBuffers[v] {
				err = invalidf("unknown logcat buffer %q", v)
			}
		case strings.HasPrefix(a, "--buffer="):
			if v := strings.TrimPrefix(a, "--buffer="); !logcatBuffers[v] {
				err = invalidf("unknown logcat buffer %q", v)
			}
		case a == "-d", a == "-D", a == "--dividers", a == "-s":
		default:
			if !validFilterSpec(a) {
				err = invalidf("logcat argument %q is not allowed (read-only options and TAG:LEVEL filters only)", a)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// validFilterSpec accepts TAG, TAG:LEVEL and *:LEVEL.
func validFilterSpec(s string) bool {
	tag, level, hasLevel := strings.Cut(s, ":")
	if hasLevel && (len(level) != 1 || !strings.Contains("VDIWEFS*", level)) {
		return false
	}
	if tag == "*" {
		return hasLevel
	}
	if tag == "" || len(tag) > 128 || tag[0] == '-' {
		return false
	}
	for i := 0; i < len(tag); i++ {
		if !isIdentByte(tag[i]) && !strings.ContainsRune(".$-", rune(tag[i])) {
			return false
		}
	}
	return true
}

// shellQuote single-quotes a word that needs it ('*' in a filter spec, '$' in a tag); words
// made only of safe characters are left bare so commands read naturally (`logcat -v monotonic`).
func shellQuote(s string) string {
	safe := s != ""
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) && !strings.ContainsRune("-_.=:/,+@%", rune(s[i])) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ValidPropKey checks a system property name: letters, digits and . _ - (starting with a
// letter), at most 255 bytes. The error wraps ErrInvalid.
func ValidPropKey(key string) error {
	if key == "" || len(key) > 255 {
		return invalidf("invalid property name %.40q: must have 1 to 255 bytes", key)
	}
	if c := key[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return invalidf("invalid property name %q: must start with a letter", key)
	}
	for i := 0; i < len(key); i++ {
		if !isIdentByte(key[i]) && key[i] != '.' && key[i] != '-' {
			return invalidf("invalid property name %q: contains %q", key, rune(key[i]))
		}
	}
	return nil
}

// ValidPropValue checks a system property value: at most 91 bytes (PROP_VALUE_MAX − 1) of
// letters, digits and . _ - : , / @ + =; empty is allowed (it clears the property).
func ValidPropValue(value string) error {
	if len(value) > 91 {
		return invalidf("invalid property value %.40q…: longer than 91 bytes", value)
	}
	for i := 0; i < len(value); i++ {
		if !isIdentByte(value[i]) && !strings.ContainsRune(".-:,/@+=", rune(value[i])) {
			return invalidf("invalid property value %q: contains %q", value, rune(value[i]))
		}
	}
	return nil
}
