package resolver

import "testing"

// FuzzPlainLine checks that the catalog's shortcut for plain text keeps
// only text the long way would keep unchanged.
func FuzzPlainLine(f *testing.F) {
	for _, s := range []string{
		"", " ", "a", "Extract tables from PDFs.", "a  b", " a", "a ", "a\tb", "a\nb", "a\rb",
		"x\x7fy", "x\x00y", "été", "a\u00a0b", "a\u0085b", "a\u202eb", "a\u2028b", "~!",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if plainLine(s) && collapseLine(s) != s {
			t.Errorf("plainLine(%q) is true, but the catalog writes it %q", s, collapseLine(s))
		}
		if got, want := oneLine(s), collapseLine(s); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
	})
}
