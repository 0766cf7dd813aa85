package fakeadb

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// traceConfig is what the fake's tracing service reads of a TraceConfig.
type traceConfig struct {
	durationMs, writePeriodMs int64
	writeIntoFile             bool
	uniqueName                string
	sources                   map[string]bool // data source names
	apps                      map[string]bool // ftrace_config.atrace_apps
	categories                map[string]bool // ftrace_config.atrace_categories
}

// parseTraceConfig reads a text-format TraceConfig (txt: perfetto's --txt; a binary config
// is not served). It knows the grammar (fields, nested messages, strings, numbers, comments)
// and keeps the fields the fake acts on; unknown fields are accepted, as perfetto does.
func parseTraceConfig(text string, txt bool) (traceConfig, error) {
	cfg := traceConfig{sources: map[string]bool{}, apps: map[string]bool{}, categories: map[string]bool{}}
	if !txt {
		return cfg, errors.New("a binary config (the fake phone reads --txt configs only)")
	}
	toks, err := tokenize(text)
	if err != nil {
		return cfg, err
	}
	var path []string
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		switch {
		case tok.text == "}" && !tok.str:
			if len(path) == 0 {
				return cfg, fmt.Errorf("line %d: unexpected '}'", tok.line)
			}
			path = path[:len(path)-1]
		case isIdent(tok):
			j := i + 1
			if j < len(toks) && toks[j].text == ":" && !toks[j].str {
				j++
			}
			if j >= len(toks) {
				return cfg, fmt.Errorf("line %d: %s has no value", tok.line, tok.text)
			}
			if toks[j].text == "{" && !toks[j].str {
				path = append(path, tok.text)
				i = j
				continue
			}
			if !toks[j].str && (toks[j].text == "}" || toks[j].text == ":") {
				return cfg, fmt.Errorf("line %d: %s has no value", tok.line, tok.text)
			}
			if err := cfg.set(strings.Join(append(path, tok.text), "."), toks[j]); err != nil {
				return cfg, err
			}
			i = j
		default:
			return cfg, fmt.Errorf("line %d: unexpected %q", tok.line, tok.text)
		}
	}
	if len(path) > 0 {
		return cfg, fmt.Errorf("%s is not closed", path[len(path)-1])
	}
	return cfg, nil
}

func (c *traceConfig) set(field string, v token) error {
	num := func() (int64, error) {
		n, err := strconv.ParseInt(v.text, 10, 64)
		if err != nil || v.str {
			return 0, fmt.Errorf("line %d: %s wants a number, not %q", v.line, field, v.text)
		}
		return n, nil
	}
	var err error
	switch field {
	case "duration_ms":
		c.durationMs, err = num()
	case "file_write_period_ms":
		c.writePeriodMs, err = num()
	case "write_into_file":
		c.writeIntoFile = v.text == "true" && !v.str
	case "unique_session_name":
		c.uniqueName = v.text
	case "data_sources.config.name":
		c.sources[v.text] = true
	case "data_sources.config.ftrace_config.atrace_apps":
		c.apps[v.text] = true
	case "data_sources.config.ftrace_config.atrace_categories":
		c.categories[v.text] = true
	}
	return err
}

type token struct {
	text string
	str  bool // a quoted string
	line int
}

func isIdent(t token) bool {
	if t.str || t.text == "" {
		return false
	}
	c := t.text[0]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// tokenize splits a text proto into names, numbers, quoted strings and the marks { } : ; ,
// (the separators ; and , are dropped), skipping '#' comments.
func tokenize(s string) ([]token, error) {
	var out []token
	line := 1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			line++
		case c == ' ' || c == '\t' || c == '\r' || c == ';' || c == ',':
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			i--
		case c == '{' || c == '}' || c == ':':
			out = append(out, token{text: string(c), line: line})
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\n' {
					return nil, fmt.Errorf("line %d: string not closed", line)
				}
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("line %d: string not closed", line)
			}
			out = append(out, token{text: b.String(), str: true, line: line})
			i = j
		case c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '-' || s[j] == '.' || s[j] >= '0' && s[j] <= '9' ||
				s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
				j++
			}
			out = append(out, token{text: s[i:j], line: line})
			i = j - 1
		default:
			return nil, fmt.Errorf("line %d: unexpected %q", line, c)
		}
	}
	return out, nil
}
