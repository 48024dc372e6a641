package search

import "testing"

// Stems of the Porter2 algorithm for words of the kinds it treats apart.
func TestStem(t *testing.T) {
	for word, want := range map[string]string{
		"consign": "consign", "consigned": "consign", "consigning": "consign",
		"generously": "generous", "knightly": "knight", "debugging": "debug",
		"configuration": "configur", "configure": "configur", "running": "run",
		"skills": "skill", "testing": "test", "cries": "cri", "ties": "tie",
		"happiness": "happi", "relational": "relat", "hopefully": "hope",
		"hoping": "hope", "hopping": "hop", "abilities": "abil", "kiwis": "kiwi",
		"gas": "gas", "gaps": "gap", "communication": "communic", "animated": "anim",
		"presentations": "present", "documentation": "document", "agreed": "agre",
		"succeed": "succeed", "dying": "die", "news": "news", "playing": "play",
		"yelling": "yell", "by": "by", "say": "say", "fluently": "fluentli",
	} {
		if got := stem(word); got != want {
			t.Errorf("stem(%q) = %q, want %q", word, got, want)
		}
	}
}
