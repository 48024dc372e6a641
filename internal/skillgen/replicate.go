package skillgen

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/skillmux/skillmux/sources"
)

// ReplicateOptions configures Replicate. A nil *ReplicateOptions means the
// defaults.
type ReplicateOptions struct {
	// Seed picks the words that vary each copy's description; default 1.
	Seed uint64
	// First is the number of the first copy. Copy k of a call is numbered
	// First+k and made from source skill (First+k) mod the number of
	// sources, so that calls with First 0, n, 2n, ... into several folders
	// write one sequence of distinct names. Default 0.
	First int
	// Copy writes every file of every copy. By default each file other
	// than SKILL.md is written once and the later copies are hard links to
	// it: the tree looks the same to a scan, takes a fraction of the disk
	// and is written several times faster. A link that cannot be made
	// (another file system, too many links) falls back to a copy.
	Copy bool
}

// Replica is one skill written by Replicate.
type Replica struct {
	// Name is the copy's name, in its front matter and as its folder's name.
	Name string
	// Dir is the copy's folder, slash-separated, relative to dst.
	Dir string
	// Source is the skill folder it copies, slash-separated, relative to
	// src ("." when src is itself a skill folder).
	Source string
}

// Replicate writes n skills under dst shaped like the real skills found
// under src: every folder holding a SKILL.md, found in lexical order and
// used in turn. It returns what it wrote, in order.
//
// Each copy keeps its source's front matter byte for byte except two
// values: the name becomes "<name>-<number>" (the source's name made
// lowercase letters, digits and hyphens, shortened so that the whole fits
// 64 characters), written in the quoting style of the original; and the
// description gets a short sentence added at its end ("Also for X and Y
// work, copy N."), inside its quotes or block scalar, so that every
// description differs. Every other key, its style, its comments and the
// body are kept. A source without a name key keeps none (its folder gives
// the name); one without a description is copied with no variation.
// Every source's rewrite is checked once, before anything is written: the
// copy must parse to the same keys and values but those two.
//
// The copy's folder is named after its name and sits as deep as its
// source: the first folder of the source's path below src gets the round
// number ("<folder>-<round>", a round being one pass over the sources),
// the folders between are kept, so group and plugin folders repeat as in
// the source. The other files of the skill folder (references, scripts,
// binary assets) are copied with their sizes and permission bits, as hard
// links unless opts.Copy; symbolic links are made again with the same
// target; sub-folders holding a SKILL.md of their own are other skills,
// not part of this one, as in a scan. Folders named .git or node_modules
// are not searched or copied.
//
// dst is created if needed and should hold none of the copies yet. The
// output depends only on src, n and the options: the same call writes the
// same bytes. Copies are written in parallel.
func Replicate(dst, src string, n int, opts *ReplicateOptions) ([]Replica, error) {
	o := ReplicateOptions{Seed: 1}
	if opts != nil {
		o = *opts
		if o.Seed == 0 {
			o.Seed = 1
		}
	}
	if n <= 0 {
		return nil, nil
	}
	if o.First < 0 {
		return nil, fmt.Errorf("replicate: First is %d, want 0 or more", o.First)
	}
	pats, err := readPatterns(src)
	if err != nil {
		return nil, err
	}
	w := &replicator{dst: dst, src: src, opts: o, pats: pats,
		width: max(5, len(fmt.Sprint(o.First+n-1))), links: map[string]*linkTarget{}}
	out := make([]Replica, n)
	jobs := make(chan int, 256)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex // guards fail
		fail error
	)
	// The work is system calls that create files; more goroutines than
	// processors only contend in the file system (measured on ext4).
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for k := range jobs {
				r, err := w.write(o.First + k)
				out[k] = r
				if err != nil {
					mu.Lock()
					if fail == nil {
						fail = fmt.Errorf("replicate: %w", err)
					}
					mu.Unlock()
				}
			}
		})
	}
	for k := range n {
		mu.Lock()
		stop := fail != nil
		mu.Unlock()
		if stop {
			break
		}
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	if fail != nil {
		return nil, fail
	}
	return out, nil
}

// pattern is one source skill, read once and copied many times.
type pattern struct {
	source string // skill folder relative to src, slash-separated
	group  string // first folder of its parent below src, "" for none
	middle string // the rest of its parent's path, slash-separated
	base   string // stem of the copies' names
	mode   fs.FileMode
	md     *template
	dirs   []string    // sub-folders, relative, parents first
	files  []childFile // other files and links
}

type childFile struct {
	rel    string // relative to the skill folder, slash-separated
	mode   fs.FileMode
	target string // a symbolic link's target; "" for a regular file
}

// readPatterns finds the skills under src and reads each one.
func readPatterns(src string) ([]*pattern, error) {
	var dirs []string
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != src && sources.SkipDir(d.Name()) {
			return filepath.SkipDir
		}
		if d.Name() == sources.SkillFile && d.Type().IsRegular() {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("replicate: %w", err)
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("replicate: no %s under %s", sources.SkillFile, src)
	}
	isSkill := map[string]bool{}
	for _, d := range dirs {
		isSkill[d] = true
	}
	pats := make([]*pattern, 0, len(dirs))
	for _, d := range dirs {
		p, err := readPattern(src, d, isSkill)
		if err != nil {
			return nil, fmt.Errorf("replicate: %w", err)
		}
		pats = append(pats, p)
	}
	return pats, nil
}

func readPattern(src, dir string, isSkill map[string]bool) (*pattern, error) {
	rel, err := filepath.Rel(src, dir)
	if err != nil {
		return nil, err
	}
	p := &pattern{source: filepath.ToSlash(rel)}
	if parent := filepath.ToSlash(filepath.Dir(rel)); parent != "." {
		p.group, p.middle, _ = strings.Cut(parent, "/")
	}
	path := filepath.Join(dir, sources.SkillFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	p.mode = st.Mode().Perm()
	var name string
	if p.md, name, err = parseTemplate(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if name == "" {
		name = filepath.Base(dir)
	}
	p.base = nameStem(name)
	if err := p.md.check(data, p.sampleName(0, 5), suffix(1, 0)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && (isSkill[path] || sources.SkipDir(d.Name())):
			return filepath.SkipDir
		case d.IsDir():
			p.dirs = append(p.dirs, rel)
		case rel == sources.SkillFile:
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			p.files = append(p.files, childFile{rel: rel, target: target})
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			p.files = append(p.files, childFile{rel: rel, mode: info.Mode().Perm()})
		}
		return nil
	})
	return p, err
}

// nameStem makes a name usable as the start of a copy's name: lowercase
// letters, digits and single hyphens, at most 64 characters less room for
// the number.
func nameStem(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			hyphen = false
		} else if !hyphen && b.Len() > 0 {
			b.WriteByte('-')
			hyphen = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if s == "" {
		s = "skill"
	}
	const room = sources.MaxNameLen - 1 - 7 // "-" and numbers up to 9,999,999
	if len(s) > room {
		s = strings.TrimRight(s[:room], "-")
	}
	return s
}

func (p *pattern) sampleName(i, width int) string {
	return fmt.Sprintf("%s-%0*d", p.base, width, i)
}

// suffix is the sentence that varies copy i's description.
func suffix(seed uint64, i int) string {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	return fmt.Sprintf(" Also for %s and %s work, copy %d.", words[rng.IntN(len(words))], words[rng.IntN(len(words))], i)
}

// replicator writes copies; it is shared by the workers.
type replicator struct {
	dst, src string
	opts     ReplicateOptions
	pats     []*pattern
	width    int // digits of the numbers in names

	// mu guards links.
	mu    sync.Mutex
	links map[string]*linkTarget // by source file path
}

// linkTarget is the first copy of a source file, which later copies link to.
type linkTarget struct {
	once sync.Once
	path string
	err  error
}

// write writes copy number i.
func (w *replicator) write(i int) (Replica, error) {
	p := w.pats[i%len(w.pats)]
	name := p.sampleName(i, w.width)
	rel := name
	if p.group != "" {
		rel = pathJoin(fmt.Sprintf("%s-%04d", p.group, i/len(w.pats)), p.middle, name)
	}
	r := Replica{Name: name, Dir: rel, Source: p.source}
	dir := filepath.Join(w.dst, filepath.FromSlash(rel))
	// The parent exists but for the first copy in it: try the one call.
	err := os.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrNotExist) {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return r, err
	}
	for _, d := range p.dirs {
		if err := os.Mkdir(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			return r, err
		}
	}
	md := p.md.render(name, suffix(w.opts.Seed, i))
	if err := os.WriteFile(filepath.Join(dir, sources.SkillFile), md, p.mode); err != nil {
		return r, err
	}
	srcDir := filepath.Join(w.src, filepath.FromSlash(p.source))
	for _, f := range p.files {
		from := filepath.Join(srcDir, filepath.FromSlash(f.rel))
		to := filepath.Join(dir, filepath.FromSlash(f.rel))
		if err := w.place(from, to, f); err != nil {
			return r, err
		}
	}
	return r, nil
}

// place writes one file of a copy: a link made again, a hard link to the
// first copy of the same source file, or a copy.
func (w *replicator) place(from, to string, f childFile) error {
	if f.target != "" {
		return os.Symlink(f.target, to)
	}
	if w.opts.Copy {
		return copyFile(from, to, f.mode)
	}
	w.mu.Lock()
	lt := w.links[from]
	if lt == nil {
		lt = &linkTarget{}
		w.links[from] = lt
	}
	w.mu.Unlock()
	first := false
	lt.once.Do(func() {
		first = true
		lt.path, lt.err = to, copyFile(from, to, f.mode)
	})
	switch {
	case first:
		return lt.err
	case lt.err != nil:
		return copyFile(from, to, f.mode)
	}
	if err := os.Link(lt.path, to); err != nil {
		return copyFile(from, to, f.mode)
	}
	return nil
}

func copyFile(from, to string, mode fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func pathJoin(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "/")
}
