package sourcetest

import (
	"context"
	"strconv"
	"testing/fstest"

	"github.com/skillmux/skillmux/sources"
)

// FakeSkill describes one skill of a Fake source.
type FakeSkill struct {
	Name, Description string
	// Body is the SKILL.md after its front matter.
	Body string
	// Files are the skill's other files, by relative path.
	Files map[string]string
	// DisableModelInvocation and NotUserInvocable set the front matter's
	// disable-model-invocation: true and user-invocable: false.
	DisableModelInvocation, NotUserInvocable bool
}

// Fake is an in-memory Source. Its fields may be changed between calls to
// List (not during one).
type Fake struct {
	SourceName string
	Namespace  string
	Scope      sources.Scope
	Convention string // recorded on every skill
	Skills     []FakeSkill
	Problems   []sources.Diagnostic
	Packages   []sources.Package
	// Err, when set, is returned by List.
	Err error
}

var _ sources.Source = (*Fake)(nil)

// Name implements sources.Source.
func (f *Fake) Name() string { return f.SourceName }

// List implements sources.Source.
func (f *Fake) List(ctx context.Context) (*sources.Listing, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.Err != nil {
		return nil, f.Err
	}
	scope := f.Scope
	if scope == "" {
		scope = sources.ScopeRoot
	}
	l := &sources.Listing{Problems: append([]sources.Diagnostic(nil), f.Problems...), Packages: append([]sources.Package(nil), f.Packages...)}
	folders := map[string]int{} // skills of each name so far: each has a folder of its own
	for _, fs := range f.Skills {
		front := "name: " + fs.Name + "\ndescription: " + fs.Description + "\n"
		if fs.DisableModelInvocation {
			front += "disable-model-invocation: true\n"
		}
		if fs.NotUserInvocable {
			front += "user-invocable: false\n"
		}
		m := fstest.MapFS{sources.SkillFile: {Data: []byte("---\n" + front + "---\n" + fs.Body)}}
		for p, c := range fs.Files {
			m[p] = &fstest.MapFile{Data: []byte(c)}
		}
		dir := "/fake/" + f.SourceName + "/" + fs.Name
		if folders[fs.Name]++; folders[fs.Name] > 1 {
			dir += "-" + strconv.Itoa(folders[fs.Name])
		}
		l.Skills = append(l.Skills, &sources.Skill{
			Ref:                    sources.Ref{Namespace: f.Namespace, Name: fs.Name},
			Description:            fs.Description,
			UserInvocable:          !fs.NotUserInvocable,
			DisableModelInvocation: fs.DisableModelInvocation,
			FrontMatter:            []byte(front),
			Path:                   dir + "/" + sources.SkillFile,
			Dir:                    dir,
			Source:                 f.SourceName,
			Scope:                  scope,
			Kind:                   sources.KindSkill,
			Convention:             f.Convention,
			Files:                  m,
		})
	}
	return l, nil
}
