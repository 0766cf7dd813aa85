package source

import "testing"

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"com.example/MainActivity":            "com.example/MainActivity",
		"Pay\u202eyaP":                        `Pay\u202eyaP`,
		"a\u200bb\u200dc\ufeffd\u2066e\u061c": `a\u200bb\u200dc\ufeffd\u2066e\u061c`,
		"Écran principal — 设置":                "Écran principal — 设置",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
		if NeedsVisible(in) != (in != want) {
			t.Errorf("NeedsVisible(%q) wrong", in)
		}
	}
}
