package search_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/resolver/search"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/claudeplugins"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// corpusSkills lists every skill of the shared corpus: the three folder
// collections as folder trees, the official plugin marketplace as Claude
// Code plugins (so its skills are "<plugin>:<skill>").
func corpusSkills(t testing.TB) []*sources.Skill {
	t.Helper()
	dir := corpus.Dir(t)
	srcs := []sources.Source{
		dirtree.New(filepath.Join(dir, "anthropics-skills"), nil),
		dirtree.New(filepath.Join(dir, "obra-superpowers"), nil),
		dirtree.New(filepath.Join(dir, "openai-skills"), nil),
		claudeplugins.Dirs([]string{filepath.Join(dir, "claude-plugins-official")}, nil),
	}
	var out []*sources.Skill
	for _, src := range srcs {
		l, err := src.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, l.Skills...)
	}
	return out
}

func corpusIndex(t testing.TB) *search.Index {
	t.Helper()
	ix := search.NewIndex()
	if _, err := ix.Update(context.Background(), corpusSkills(t), nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

// rankingTable holds what a person would type, in their own words rather
// than the skill's, and the skill they are after (any of several, where
// the corpus holds the same skill twice or two that do the same job).
var rankingTable = []struct {
	query string
	want  []string
}{
	{"make an animated gif to post in slack", []string{"slack-gif-creator"}},
	{"my tests keep failing and I can't figure out why", []string{"systematic-debugging"}},
	{"write the tests first, then the code", []string{"test-driven-development"}},
	{"save my discord bot token", []string{"discord:configure"}},
	{"who is allowed to message my telegram bot", []string{"telegram:access"}},
	{"the CI checks on my pull request are red", []string{"gh-fix-ci"}},
	{"reply to the comments people left on my github PR", []string{"gh-address-comments"}},
	{"generative art from code with a random seed", []string{"algorithmic-art"}},
	{"design a poster as a png", []string{"canvas-design"}},
	{"package my mcp server so people can install it in claude desktop with one click", []string{"mcp-server-dev:build-mcpb"}},
	{"write an update for the whole company", []string{"internal-comms"}},
	{"help me co-write a design doc", []string{"doc-coauthoring"}},
	{"open a ticket in linear", []string{"linear"}},
	{"turn the notion spec into tasks", []string{"notion-spec-to-implementation"}},
	{"get ready for tomorrow's meeting from our notion pages", []string{"notion-meeting-intelligence"}},
	{"work on two branches at once without stashing", []string{"using-git-worktrees"}},
	{"the feature is done, what now: merge or open a pull request", []string{"finishing-a-development-branch"}},
	{"several unrelated bugs, fix them in parallel with agents", []string{"dispatching-parallel-agents"}},
	{"let's think through ideas before we build anything", []string{"brainstorming"}},
	{"check it really works before saying it's finished", []string{"verification-before-completion"}},
	{"use our company colors and fonts", []string{"brand-guidelines"}},
	{"give my slides a color theme", []string{"theme-factory"}},
	{"a react web app with several components and shadcn", []string{"web-artifacts-builder"}},
	{"solve an olympiad proof problem", []string{"math-olympiad:math-olympiad"}},
	{"block dangerous rm -rf commands with a rule", []string{"hookify:writing-hookify-rules"}},
	{"add a slash command to my plugin", []string{"plugin-dev:command-development"}},
	{"write a new skill", []string{"skill-creator", "skill-creator:skill-creator", "plugin-dev:skill-development", "writing-skills"}},
	{"install a skill from the curated list", []string{"skill-installer"}},
	{"a year in review of how I used claude code", []string{"receipts:receipts"}},
	{"clean up the CLAUDE.md in this repo", []string{"claude-md-management:claude-md-improver"}},
	{"which hooks and subagents should this repo have", []string{"claude-code-setup:claude-automation-recommender"}},
	{"a page with sliders to try settings and copy the result", []string{"playground:playground"}},
	{"call the anthropic api with prompt caching", []string{"claude-api"}},
	{"break the work into steps before touching code", []string{"writing-plans", "create-plan"}},
	{"someone reviewed my code and I disagree with a comment", []string{"receiving-code-review"}},
	{"flash micropython onto a new m5stack board", []string{"cwc-makers:m5-onboard"}},
}

// offeredToModel leaves out, as the search tool does, the skills whose
// front matter says disable-model-invocation.
func offeredToModel(sk *sources.Skill) bool { return !sk.DisableModelInvocation }

// TestRanking checks that the skill a person is after is among the first
// three hits for at least 90 % of the table.
func TestRanking(t *testing.T) {
	ix := corpusIndex(t)
	found := 0
	var report strings.Builder
	for _, tt := range rankingTable {
		hits := ix.Search(tt.query, 3, offeredToModel)
		var names []string
		ok := false
		for _, h := range hits {
			names = append(names, h.Skill.Ref.String())
			ok = ok || slices.Contains(tt.want, h.Skill.Ref.String())
		}
		if ok {
			found++
		}
		mark := "ok  "
		if !ok {
			mark = "MISS"
		}
		fmt.Fprintf(&report, "%s %-75q want %v, top 3 %v\n", mark, tt.query, tt.want, names)
	}
	score := float64(found) / float64(len(rankingTable))
	t.Logf("expected skill in the top 3 for %d of %d queries (%.0f %%)\n%s", found, len(rankingTable), 100*score, report.String())
	if len(rankingTable) < 25 {
		t.Errorf("only %d queries; the table needs at least 25", len(rankingTable))
	}
	if score < 0.9 {
		t.Errorf("top-3 hit rate %.0f %%, below 90 %%", 100*score)
	}
}
