// Package skillgen writes skill folders for benchmarks and scale tests, in
// two shapes. Generate writes synthetic skills of realistic size: a
// SKILL.md with a name and a ~150-character description, a ~3 kB body,
// and a references file, spread over group folders. Replicate copies real
// skills (the shared corpus, found with Corpus) as many times as asked,
// each renamed, keeping the front matter's shape, the bodies, the other
// files and the folder layout: front matter as people write it costs a
// parser more than plain "key: value" lines. Both are deterministic for a
// seed.
package skillgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Options configures Generate. A nil *Options means the defaults.
type Options struct {
	// Seed makes the text; default 1.
	Seed uint64
	// Groups is the number of folders the skills are spread over;
	// default 10.
	Groups int
	// Prefix starts every skill name; default "skill".
	Prefix string
	// First is the number of the first skill (and places it among the
	// groups), so that calls with First 0, n, 2n, ... into several folders
	// write distinct names; default 0.
	First int
}

var words = strings.Fields(`report table chart invoice deploy review schema query migrate
audit export import render parse validate summarize translate format release test debug
profile index search cache queue stream archive backup restore monitor alert budget
forecast contract policy ticket incident runbook onboarding diagram slide document`)

// Generate writes n skills under dir: <dir>/group-<g>/<prefix>-<i>/SKILL.md
// and references/guide.md next to it, for i from First to First+n-1.
func Generate(dir string, n int, opts *Options) error {
	o := Options{Seed: 1, Groups: 10, Prefix: "skill"}
	if opts != nil {
		if opts.Seed != 0 {
			o.Seed = opts.Seed
		}
		if opts.Groups > 0 {
			o.Groups = opts.Groups
		}
		if opts.Prefix != "" {
			o.Prefix = opts.Prefix
		}
		o.First = max(0, opts.First)
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	for i := o.First; i < o.First+n; i++ {
		name := fmt.Sprintf("%s-%05d", o.Prefix, i)
		skillDir := filepath.Join(dir, fmt.Sprintf("group-%02d", i%o.Groups), name)
		if err := os.MkdirAll(filepath.Join(skillDir, "references"), 0o755); err != nil {
			return err
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n# %s\n\n%s", name, Description(rng), name, text(rng, 3000))
		if err := os.WriteFile(filepath.Join(skillDir, "SKILL.md"), []byte(md), 0o644); err != nil {
			return err
		}
		ref := "# Guide\n\n" + text(rng, 1000)
		if err := os.WriteFile(filepath.Join(skillDir, "references", "guide.md"), []byte(ref), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Description returns a description of about 150 characters that starts
// with a capital letter and says when to use the skill.
func Description(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("Helps with ")
	for b.Len() < 120 {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	b.WriteString("tasks. Use when the user asks for it.")
	return b.String()
}

// text returns about size bytes of markdown paragraphs.
func text(rng *rand.Rand, size int) string {
	var b strings.Builder
	for b.Len() < size {
		for range 12 {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteString("step.\n")
		if rng.IntN(5) == 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}
