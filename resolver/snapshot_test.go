package resolver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

func fake(name, ns string, skills ...string) *sourcetest.Fake {
	f := &sourcetest.Fake{SourceName: name, Namespace: ns}
	for _, s := range skills {
		f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: s, Description: "The " + s + " skill from " + name + "."})
	}
	return f
}

func load(t *testing.T, srcs ...sources.Source) *resolver.Snapshot {
	t.Helper()
	snap, err := resolver.New(srcs, nil).Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestLookup(t *testing.T) {
	snap := load(t,
		fake("user", "", "pdf", "docx", "Release-Notes", "été", "beta"),
		fake("project", "", "pdf", "csv"),
		fake("discord-src", "discord", "access", "configure"),
		fake("telegram-src", "telegram", "access"),
	)
	tests := []struct {
		name       string
		wantSource string // empty when an error is wanted
		wantErr    error
		wantInErr  []string
	}{
		{"pdf", "user", nil, nil},                     // earlier source wins
		{"PDF", "user", nil, nil},                     // case-insensitive
		{" csv ", "project", nil, nil},                // trimmed
		{"release-notes", "user", nil, nil},           // case-insensitive on the skill's own case
		{"project:pdf", "project", nil, nil},          // the shadowed one, by source
		{"discord:access", "discord-src", nil, nil},   // qualified
		{"Telegram:ACCESS", "telegram-src", nil, nil}, // qualified, any case
		{"configure", "discord-src", nil, nil},        // short name of one plugin skill
		{"access", "", sources.ErrAmbiguous, []string{"discord:access", "telegram:access", "full names"}},
		{"pfd", "", sources.ErrNotFound, []string{`"pfd"`, "pdf"}},
		{"acess", "", sources.ErrNotFound, []string{"discord:access", "telegram:access"}},
		{"slack:access", "", sources.ErrNotFound, []string{"discord:access"}},
		{"zzzzzzzz", "", sources.ErrNotFound, nil},
		{"ete", "", sources.ErrNotFound, []string{"did you mean été, beta?"}}, // accents not typed: nearest
		{"étè", "", sources.ErrNotFound, []string{"did you mean été"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := snap.Lookup(tt.name)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Lookup: %v", err)
				}
				if m.Skill.Source != tt.wantSource {
					t.Errorf("got %s from %s, want from %s", m.Ref, m.Skill.Source, tt.wantSource)
				}
				if !strings.EqualFold(m.Ref.String(), strings.TrimSpace(tt.name)) && !strings.EqualFold(m.Ref.Name, strings.TrimSpace(tt.name)) {
					t.Errorf("reached %q as %s", tt.name, m.Ref)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			for _, s := range tt.wantInErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func TestShadowing(t *testing.T) {
	snap := load(t,
		fake("first", "", "a", "b"),
		fake("second", "", "a", "c"),
		fake("third", "", "a"),
	)
	var served []string
	for _, sk := range snap.Skills() {
		served = append(served, sk.Ref.String()+"@"+sk.Source)
	}
	if diff := cmp.Diff([]string{"a@first", "b@first", "c@second"}, served); diff != "" {
		t.Errorf("served (-want +got):\n%s", diff)
	}
	var shadowed []string
	for _, sh := range snap.Shadowed() {
		shadowed = append(shadowed, sh.Skill.Source+" by "+sh.By.Source+" as "+sh.Alias.String())
	}
	if diff := cmp.Diff([]string{"second by first as second:a", "third by first as third:a"}, shadowed); diff != "" {
		t.Errorf("shadowed (-want +got):\n%s", diff)
	}
	for _, alias := range []string{"second:a", "third:a"} {
		if m, err := snap.Lookup(alias); err != nil || m.Skill.Source != strings.Split(alias, ":")[0] || m.Ref.String() != alias {
			t.Errorf("Lookup(%q) = %v, %v", alias, m, err)
		}
	}
}

// Names that look the same are one name: "été" written with accented
// letters (NFC) and with combining accents (NFD) collide as names in two
// cases do, and either spelling loads the skill served.
func TestShadowingAcrossUnicodeForms(t *testing.T) {
	const composed, decomposed = "\u00e9t\u00e9", "e\u0301te\u0301"
	snap := load(t, fake("first", "", composed), fake("second", "", decomposed))
	if snap.Len() != 1 || len(snap.Shadowed()) != 1 {
		t.Fatalf("served %d, shadowed %d; want 1 and 1", snap.Len(), len(snap.Shadowed()))
	}
	for _, name := range []string{composed, decomposed} {
		if m, err := snap.Lookup(name); err != nil || m.Skill.Source != "first" {
			t.Errorf("Lookup(%q) = %v, %v; want the first source's", name, m, err)
		}
	}
	// Each is read by its URI, which is written as its name is.
	for _, a := range snap.Addresses() {
		if got, err := snap.Resolve(a.URI.Entry()); err != nil || got.Match.Skill != a.Match.Skill {
			t.Errorf("Resolve(%s) = %v, %v; want the skill it was listed for", a.URI.Entry(), got.Match.Skill, err)
		}
	}
}

func TestShadowingWithinOneSource(t *testing.T) {
	snap := load(t, fake("tree", "", "a", "a", "a"))
	var aliases []string
	for _, sh := range snap.Shadowed() {
		aliases = append(aliases, sh.Alias.String())
		if got, err := snap.Lookup(sh.Alias.String()); err != nil || got.Skill != sh.Skill {
			t.Errorf("alias %s does not reach its skill: %v", sh.Alias, err)
		}
		// An alias is a well-formed Ref: it parses back to itself, and its
		// Name is the skill's own name.
		if back := sources.ParseRef(sh.Alias.String()); back != sh.Alias || sh.Alias.Name != sh.Skill.Ref.Name {
			t.Errorf("alias %#v parses back as %#v", sh.Alias, back)
		}
	}
	if diff := cmp.Diff([]string{"tree:a", "tree~2:a"}, aliases); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFailingSourceDoesNotStopOthers(t *testing.T) {
	bad := fake("bad", "", "x")
	bad.Err = errors.New("disk on fire")
	snap := load(t, bad, fake("good", "", "y"), panicking{})
	if snap.Len() != 1 || snap.Skills()[0].Ref.Name != "y" {
		t.Errorf("served %v", snap.Skills())
	}
	if len(snap.Failed()) != 2 || !strings.Contains(snap.Failed()[0].Err.Error(), "disk on fire") || !strings.Contains(snap.Failed()[1].Err.Error(), "panicked") {
		t.Errorf("failed = %v", snap.Failed())
	}
}

type panicking struct{}

func (panicking) Name() string { return "panicking" }
func (panicking) List(context.Context) (*sources.Listing, error) {
	panic("bug in a source")
}

func TestReloadSwapsAndNotifies(t *testing.T) {
	src := fake("s", "", "one")
	r := resolver.New([]sources.Source{src}, nil)
	if r.Snapshot() == nil || r.Snapshot().Len() != 0 {
		t.Fatal("a new resolver must have an empty snapshot")
	}
	var swaps []int
	r.OnSwap(func(old, new *resolver.Snapshot) { swaps = append(swaps, new.Len()) })
	first, _ := r.Reload(context.Background())
	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "two", Description: "Two."})
	second, _ := r.Reload(context.Background())
	if first.Len() != 1 || second.Len() != 2 || r.Snapshot() != second {
		t.Errorf("snapshots: %d, %d", first.Len(), second.Len())
	}
	if _, err := first.Lookup("two"); err == nil {
		t.Error("an old snapshot changed")
	}
	if diff := cmp.Diff([]int{1, 2}, swaps); diff != "" {
		t.Errorf("swaps (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Reload(ctx); err == nil || r.Snapshot() != second {
		t.Errorf("a cancelled reload must keep the old snapshot: err %v", err)
	}
}

// A callback that reloads, or one that blocks, must not deadlock or block
// the resolver: callbacks run outside its locks.
func TestCallbacksRunOutsideTheLock(t *testing.T) {
	src := fake("s", "", "one")
	r := resolver.New([]sources.Source{src}, nil)
	ctx := context.Background()
	reentered := false
	r.OnSwap(func(old, new *resolver.Snapshot) {
		if !reentered {
			reentered = true
			if _, err := r.Reload(ctx); err != nil { // re-entrant
				t.Error(err)
			}
		}
	})
	if _, err := r.Reload(ctx); err != nil {
		t.Fatal(err)
	}

	// A blocked callback holds no lock: another Reload swaps and returns.
	release := make(chan struct{})
	entered := make(chan struct{})
	r2 := resolver.New([]sources.Source{src}, nil)
	var once bool
	r2.OnSwap(func(old, new *resolver.Snapshot) {
		if !once {
			once = true
			close(entered)
			<-release
		}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r2.Reload(ctx)
	}()
	<-entered
	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "two", Description: "Two."})
	snap, err := r2.Reload(ctx)
	if err != nil || snap.Len() != 2 || r2.Snapshot() != snap {
		t.Errorf("a reload while a callback blocks: %v, %v", snap, err)
	}
	close(release)
	<-done
}

// Every callback round sees the latest snapshot, and the last round sees
// the one in force.
func TestCallbacksSeeTheLatestSnapshot(t *testing.T) {
	src := fake("s", "", "a")
	r := resolver.New([]sources.Source{src}, nil)
	var mu sync.Mutex
	var last *resolver.Snapshot
	r.OnSwap(func(old, new *resolver.Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		if last != nil && old != last {
			t.Errorf("old is not the snapshot of the previous round")
		}
		last = new
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { r.Reload(context.Background()) })
	}
	wg.Wait()
	if last != r.Snapshot() {
		t.Error("the last callback did not see the snapshot in force")
	}
}

func TestExcluding(t *testing.T) {
	native := &sourcetest.Fake{SourceName: "user", Convention: sources.ConventionClaudeUser, Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "Native."}}}
	mine := &sourcetest.Fake{SourceName: "user", Skills: []sourcetest.FakeSkill{{Name: "mine", Description: "Mine."}}}
	snap := load(t, native, mine, fake("root", "", "pdf"))
	view := snap.Excluding([]string{sources.ConventionClaudeUser})
	var got []string
	for _, sk := range view.Skills() {
		got = append(got, sk.Ref.String()+"@"+sk.Source)
	}
	if diff := cmp.Diff([]string{"mine@user"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(view.Shadowed()) != 1 || view.Shadowed()[0].Alias.String() != "root:pdf" || len(snap.Shadowed()) != 1 || snap.Len() != 2 {
		t.Errorf("view shadowed %v; the snapshot changed: %d skills, %v shadowed", view.Shadowed(), snap.Len(), snap.Shadowed())
	}
	// Leaving the native pdf out changes no name: pdf is still the
	// native one, which the client loads itself, and the root's keeps
	// its alias.
	for name, want := range map[string]string{"pdf": "Native.", "root:pdf": "The pdf skill from root."} {
		if m, err := view.Lookup(name); err != nil || m.Skill.Description != want {
			t.Errorf("Lookup(%q) in the view = %v, %v; want the skill %q", name, m.Skill, err, want)
		}
	}
	if snap.Excluding(nil) != snap {
		t.Error("excluding nothing should be the snapshot itself")
	}
}

// Names whose lower case is longer in bytes, or that are not UTF-8, used
// to make Lookup panic; long near misses must stay cheap.
func TestLookupOfHostileNames(t *testing.T) {
	f := &sourcetest.Fake{SourceName: "s"}
	for i := range 5000 {
		f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: fmt.Sprintf("%s-%04d", strings.Repeat("long-name-", 24), i), Description: "d"})
	}
	snap := load(t, f)
	for _, name := range []string{
		strings.Repeat("Ⱥ", 100),
		strings.Repeat("Ⱥ", 200),
		"\xff\xfe" + strings.Repeat("a", 300),
		strings.Repeat("long-name-", 24) + "-0001x", // a near miss of 246 bytes
		strings.Repeat("x", 10000),
	} {
		_, err := snap.Lookup(name)
		if !errors.Is(err, sources.ErrNotFound) {
			t.Errorf("Lookup(%.20q…) = %v", name, err)
		}
	}
	_, err := snap.Lookup(strings.Repeat("long-name-", 24) + "-00x1")
	var nf *resolver.NotFoundError
	if !errors.As(err, &nf) || len(nf.Suggestions) == 0 || !strings.HasSuffix(nf.Suggestions[0], "-0001") {
		t.Errorf("a near miss of a long name: %v", err)
	}
}

// The same folder reached through two sources (a root named twice, or the
// user's folder named as a root too) is one skill, not one shadowing
// itself under a second name.
func TestOneFolderTwoSources(t *testing.T) {
	dir := t.TempDir()
	sourcetest.WriteFile(t, filepath.Join(dir, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: P.\n---\n")
	sourcetest.WriteFile(t, filepath.Join(dir, "team", "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Another.\n---\n")
	snap := load(t, dirtree.New(dir, &dirtree.Options{Name: "user"}), dirtree.New(dir, &dirtree.Options{Name: "root"}),
		dirtree.New(filepath.Join(dir, "team"), &dirtree.Options{Name: "team"}))
	if snap.Len() != 1 || snap.Skills()[0].Path != filepath.Join(dir, "pdf", "SKILL.md") {
		t.Fatalf("served %v", snap.Skills())
	}
	var shadowed []string
	for _, sh := range snap.Shadowed() {
		shadowed = append(shadowed, sh.Alias.String()+"@"+sh.Skill.Path)
	}
	// The other pdf, from team/ (a folder listed by two sources as well),
	// is shadowed once, under the name of the first source listing it.
	want := []string{"user:pdf@" + filepath.Join(dir, "team", "pdf", "SKILL.md")}
	if diff := cmp.Diff(want, shadowed); diff != "" {
		t.Errorf("shadowed (-want +got):\n%s", diff)
	}
}

// One folder reached by two paths, one of them through a link (the
// common ~/.agents/skills -> ~/.claude/skills, or a root named twice, once
// through a link), is one skill: served once, shadowed by nothing, and
// left out for a client that loads the folder it leads to.
func TestOneFolderTwoPaths(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude")
	agents := filepath.Join(dir, "agents")
	sourcetest.WriteFile(t, filepath.Join(claude, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: P.\n---\n")
	if err := os.Symlink(claude, agents); err != nil {
		t.Skip("no symlinks here:", err)
	}
	snap := load(t,
		dirtree.New(claude, &dirtree.Options{Name: "user", Convention: sources.ConventionClaudeUser}),
		dirtree.New(agents, &dirtree.Options{Name: "user", Convention: sources.ConventionAgentsUser}),
		dirtree.New(agents, &dirtree.Options{Name: "rootlink"}))
	if snap.Len() != 1 || snap.Skills()[0].Path != filepath.Join(claude, "pdf", "SKILL.md") || len(snap.Shadowed()) != 0 {
		t.Fatalf("served %v, shadowed %v", snap.Skills(), snap.Shadowed())
	}
	view := snap.Excluding([]string{sources.ConventionClaudeUser})
	if view.Len() != 0 || len(view.Shadowed()) != 0 {
		t.Errorf("Claude Code is served again what it loads: %v, shadowed %v", view.Skills(), view.Shadowed())
	}
	view = snap.Excluding([]string{sources.ConventionAgentsUser})
	if view.Len() != 0 {
		t.Errorf("Codex is served again what it loads: %v", view.Skills())
	}
}

// A folder reached through a link under another name than its first
// path's (a plugin's skill linked into ~/.claude/skills, which is both
// "access" and "telegram:access") keeps both names, as it does without a
// link: a name its plugin gives it never stops loading it. A client that
// loads the folder itself is served neither.
func TestOneFolderTwoNames(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "telegram", "skills")
	sourcetest.WriteFile(t, filepath.Join(plugin, "access", "SKILL.md"), "---\nname: access\ndescription: A.\n---\n")
	user := filepath.Join(dir, "claude")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(plugin, "access"), filepath.Join(user, "tg-access")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	snap := load(t,
		dirtree.New(user, &dirtree.Options{Name: "user", Convention: sources.ConventionClaudeUser}),
		dirtree.New(plugin, &dirtree.Options{Name: "plugins", Namespace: "telegram"}),
		dirtree.New(user, &dirtree.Options{Name: "again"}))
	var served []string
	for _, sk := range snap.Skills() {
		served = append(served, sk.Ref.Key())
	}
	if diff := cmp.Diff([]string{"access", "telegram:access"}, served); diff != "" || len(snap.Shadowed()) != 0 {
		t.Fatalf("served (-want +got):\n%s\nshadowed %v", diff, snap.Shadowed())
	}
	if m, err := snap.Lookup("telegram:access"); err != nil || m.Skill.Dir != filepath.Join(plugin, "access") {
		t.Errorf("telegram:access: %v, %v", m, err)
	}
	if view := snap.Excluding([]string{sources.ConventionClaudeUser}); view.Len() != 0 {
		t.Errorf("Claude Code is served again what it loads: %v", view.Skills())
	}

	// In one namespace, a folder is one skill whatever name a path gives
	// it: a link "pdf" to a folder "pdf-tools" whose SKILL.md names none.
	agents := filepath.Join(dir, "agents")
	sourcetest.WriteFile(t, filepath.Join(agents, "pdf-tools", "SKILL.md"), "---\ndescription: P.\n---\n")
	if err := os.Symlink(filepath.Join(agents, "pdf-tools"), filepath.Join(user, "pdf")); err != nil {
		t.Fatal(err)
	}
	snap = load(t, dirtree.New(user, &dirtree.Options{Name: "user"}), dirtree.New(agents, &dirtree.Options{Name: "agents"}))
	served = nil
	for _, sk := range snap.Skills() {
		served = append(served, sk.Ref.Key())
	}
	if diff := cmp.Diff([]string{"access", "pdf"}, served); diff != "" {
		t.Errorf("one folder by two names in one namespace (-want +got):\n%s", diff)
	}
}

// Learned notes edited while the server runs each stay in the catalog:
// a note rescanned alone has the real path a full scan gives it, so two
// of them are not taken for one folder reached twice.
func TestEditedLearnedNotesStayApart(t *testing.T) {
	dir := t.TempDir()
	notes := []string{filepath.Join(dir, "alpha.md"), filepath.Join(dir, "beta.md")}
	write := func(text string) {
		for _, p := range notes {
			sourcetest.WriteFile(t, p, "---\ndescription: "+text+"\n---\nbody\n")
		}
	}
	write("First.")
	tree := dirtree.New(dir, &dirtree.Options{Name: "notes", Learned: true})
	r := resolver.New([]sources.Source{tree}, nil)
	ctx := context.Background()
	if _, err := r.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	write("Edited.")
	tree.Changed(notes...)
	r.MarkChanged(tree)
	snap, err := r.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sk := range snap.Skills() {
		got = append(got, sk.Ref.String()+": "+sk.Description)
	}
	if want := []string{"alpha: Edited.", "beta: Edited."}; !slices.Equal(got, want) {
		t.Errorf("after both notes were edited: %q, want %q", got, want)
	}
}

// A name that reaches no skill, but names the folder of a SKILL.md that
// was not loaded, says which file and why: the model asked for a skill
// its user expects, and the user learns what to mend.
func TestLookupSaysWhyAFolderIsNoSkill(t *testing.T) {
	bad := &sourcetest.Fake{SourceName: "user", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "Fine."}}, Problems: []sources.Diagnostic{
		{Severity: sources.Error, Path: "/home/u/skills/Broken/SKILL.md", Line: 3, Rule: "yaml", Message: "mapping values are not allowed here"},
		{Severity: sources.Warning, Path: "/home/u/skills/warned/SKILL.md", Rule: "name", Message: "differs"},
		{Severity: sources.Error, Path: "/home/u/skills/other/notes.md", Rule: "read", Message: "cannot read"},
		{Severity: sources.Warning, Path: "/home/u/skills/closed", Rule: "read", Message: "cannot read folder: permission denied"},
		{Severity: sources.Warning, Path: "/fake/user/pdf/scripts", Rule: "read", Message: "cannot read folder: permission denied"},
	}}
	snap := load(t, bad)
	for name, want := range map[string]string{
		"broken":      `no skill named "broken"; /home/u/skills/Broken/SKILL.md:3 was not loaded: mapping values are not allowed here`,
		"team:broken": `no skill named "team:broken"; /home/u/skills/Broken/SKILL.md:3 was not loaded: mapping values are not allowed here`,
		"warned":      `no skill named "warned"`,
		"other":       `no skill named "other"`,
		"closed":      `no skill named "closed"; /home/u/skills/closed was not loaded: cannot read folder: permission denied`,
		"scripts":     `no skill named "scripts"`, // a folder of the pdf skill's files`
	} {
		_, err := snap.Lookup(name)
		if !errors.Is(err, sources.ErrNotFound) || err.Error() != want {
			t.Errorf("Lookup(%q) = %v, want %s", name, err, want)
		}
	}
}

// A skill nested in another skill's folder is served after the skills of
// every source that are not: of two skills of one name, the one not
// nested wins, whatever the sources' order, so that a name served before
// a deferred scan found the nested one keeps loading the same skill. A
// source made of several folders lists its nested skills after all its
// others too.
func TestNestedSkillsComeAfterEverySourcesOthers(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	write := func(path, name string) {
		sourcetest.WriteFile(t, path, "---\nname: "+name+"\ndescription: The "+name+" skill.\n---\n")
	}
	write(filepath.Join(a, "outer", "SKILL.md"), "outer")
	write(filepath.Join(a, "outer", "flip", "SKILL.md"), "flip")
	write(filepath.Join(b, "flip", "SKILL.md"), "flip")
	snap := load(t, dirtree.New(a, &dirtree.Options{Name: "a"}), dirtree.New(b, &dirtree.Options{Name: "b"}))
	if m, err := snap.Lookup("flip"); err != nil || m.Skill.Source != "b" {
		t.Errorf("flip is %+v, %v; want b's, not the one nested in a's outer", m.Skill, err)
	}
	if m, err := snap.Lookup("a:flip"); err != nil || m.Skill.Path != filepath.Join(a, "outer", "flip", "SKILL.md") {
		t.Errorf("a:flip is %+v, %v; want the nested one", m.Skill, err)
	}

	l, err := sources.Concat("both", dirtree.New(a, nil), dirtree.New(b, nil)).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, sk := range l.Skills {
		paths = append(paths, sk.Path)
	}
	want := []string{filepath.Join(a, "outer", "SKILL.md"), filepath.Join(b, "flip", "SKILL.md"), filepath.Join(a, "outer", "flip", "SKILL.md")}
	if diff := cmp.Diff(want, paths); diff != "" || l.Nested != 1 {
		t.Errorf("Concat: nested %d; want 1; order (-want +got):\n%s", l.Nested, diff)
	}
}
