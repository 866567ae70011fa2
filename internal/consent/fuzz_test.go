package consent

import (
	"context"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzNeutralize: whatever an agent sends as a reason, what reaches the operator is valid UTF-8
// with no control, format or separator character, one character per input character; and the
// request's argument check never panics.
func FuzzNeutralize(f *testing.F) {
	for _, s := range []string{"", "plain", "a\nb", "\x1b]0;title\a", "\u202Eevil", "\u2066x\u2069", "\u200B\uFEFF", "\xff\xfe", "é日本"} {
		f.Add(s)
	}
	b := New(Options{Commands: &fakeCommands{}})
	f.Fuzz(func(t *testing.T, s string) {
		out := Neutralize(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Neutralize(%q) = %q is not valid UTF-8", s, out)
		}
		for _, r := range out {
			if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
				t.Fatalf("Neutralize(%q) kept %U", s, r)
			}
		}
		if utf8.RuneCountInString(out) != utf8.RuneCountInString(s) {
			t.Fatalf("Neutralize(%q) changed the length", s)
		}
		// No prompter: every outcome is immediate (bad-arguments, already enabled, unavailable).
		_, _ = b.Request(context.Background(), []string{s}, s, "s")
	})
}
