package fakeadb

import "strings"

// Args splits a shell command line the way /system/bin/sh would for simple commands, so a
// Handler can match what the host sent: words are separated by blanks; single quotes keep
// their content literally; double quotes keep blanks and honour the escapes \" \\ \$ and \`;
// a backslash outside quotes escapes the next character. Operators such as ';' and '|' are not
// interpreted: they stay in the words they touch. (The adb client sends `adb logcat -v time` as
// an export of ANDROID_LOG_TAGS, then exec logcat with every argument single-quoted; fpstop's
// device package sends plain `logcat -v monotonic ...`.)
func Args(cmd string) []string {
	var (
		out   []string
		cur   strings.Builder
		inTok bool
	)
	flush := func() {
		if inTok {
			out = append(out, cur.String())
			cur.Reset()
			inTok = false
		}
	}
	for i := 0; i < len(cmd); i++ {
		ch := cmd[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			flush()
		case ch == '\'':
			inTok = true
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				cur.WriteString(cmd[i+1:])
				i = len(cmd)
				break
			}
			cur.WriteString(cmd[i+1 : i+1+j])
			i += j + 1
		case ch == '"':
			inTok = true
			for i++; i < len(cmd) && cmd[i] != '"'; i++ {
				if cmd[i] == '\\' && i+1 < len(cmd) && strings.IndexByte("\"\\$`", cmd[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(cmd[i])
			}
		case ch == '\\' && i+1 < len(cmd):
			inTok = true
			i++
			cur.WriteByte(cmd[i])
		default:
			inTok = true
			cur.WriteByte(ch)
		}
	}
	flush()
	return out
}
