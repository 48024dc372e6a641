package leftover

import "testing"

func TestIs(t *testing.T) {
	for name, want := range map[string]bool{
		"SKILL.md~": true, ".SKILL.md.swp": true, ".x.swo": true, ".x.swx": true,
		".#SKILL.md": true, "#SKILL.md#": true, ".DS_Store": true,
		"SKILL.md": false, "forms.md": false, "#": false, "notes#1.md": false, "swp": false, "4913": false,
	} {
		if got := Is(name); got != want {
			t.Errorf("Is(%q) = %v, want %v", name, got, want)
		}
	}
}
