package source

// SniffUTF16 tells from the first bytes of a text whether it is UTF-16 and which byte order:
// by its byte-order mark (bom is set), or — no mark — when NUL is (nearly) every other byte,
// which ASCII text in UTF-16 always shows (Windows tools write such files).
func SniffUTF16(b []byte) (utf16, bigEndian, bom bool) {
	switch {
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		return true, false, true
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return true, true, true
	}
	if len(b) < 8 {
		return false, false, false
	}
	b = b[:min(len(b), 4096)&^1]
	var odd, even int
	for i, c := range b {
		if c == 0 {
			if i%2 == 1 {
				odd++
			} else {
				even++
			}
		}
	}
	half := len(b) / 2
	switch {
	case odd*10 >= half*9 && even*10 < half:
		return true, false, false
	case even*10 >= half*9 && odd*10 < half:
		return true, true, false
	}
	return false, false, false
}
