package main

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/skillmux/skillmux/sources"
)

// Bounds on what a bundle may hold.
const (
	maxBundleBytes = 256 << 20 // the archive itself
	maxEntries     = 10_000
	maxFileBytes   = 16 << 20 // one file, inflated
	maxTotalBytes  = 64 << 20 // one bundle, inflated
	maxRatio       = 200      // inflated / compressed, for files over 1 MiB
)

// Options configures Bundles. A nil *Options means the defaults.
type Options struct {
	// Name is the source's name; default "zipped".
	Name string
	// Poll is how often Watch looks at the folder; default one second.
	Poll time.Duration
}

// Bundles serves the skills in the .zip and .skill files of a folder.
type Bundles struct {
	dir  string
	name string
	poll time.Duration

	// mu guards cache: what each bundle gave, by file name, kept while
	// its size and modification time stay the same, so that an
	// unchanged bundle gives the same *Skill values.
	mu    sync.Mutex
	cache map[string]*bundle
}

var _ sources.Watcher = (*Bundles)(nil)

// NewBundles returns the source of the bundles in dir.
func NewBundles(dir string, opts *Options) *Bundles {
	b := &Bundles{dir: dir, name: "zipped", poll: time.Second, cache: map[string]*bundle{}}
	if opts != nil {
		if opts.Name != "" {
			b.name = opts.Name
		}
		if opts.Poll > 0 {
			b.poll = opts.Poll
		}
	}
	return b
}

// Name implements sources.Source.
func (b *Bundles) Name() string { return b.name }

// bundle is what one archive gave.
type bundle struct {
	size     int64
	mtime    time.Time
	skills   []*sources.Skill
	problems []sources.Diagnostic
}

// List implements sources.Source: the skills of every bundle, in the
// order of the bundles' names.
func (b *Bundles) List(ctx context.Context) (*sources.Listing, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(b.dir)
	if err != nil {
		return nil, fmt.Errorf("open the folder of bundles: %w", err)
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, fmt.Errorf("read the folder of bundles: %w", err)
	}
	out := &sources.Listing{}
	seen := map[string]bool{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !isBundle(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // gone since the listing
		}
		full := filepath.Join(b.dir, e.Name())
		if !info.Mode().IsRegular() {
			out.Problems = append(out.Problems, sources.Diagnostic{Severity: sources.Error, Path: full, Rule: "bundle-not-file", Message: "not a regular file; skipped"})
			continue
		}
		seen[e.Name()] = true
		b.mu.Lock()
		bd := b.cache[e.Name()]
		b.mu.Unlock()
		if bd == nil || bd.size != info.Size() || !bd.mtime.Equal(info.ModTime()) {
			bd = b.load(root, e.Name(), info)
			b.mu.Lock()
			b.cache[e.Name()] = bd
			b.mu.Unlock()
		}
		out.Skills = append(out.Skills, bd.skills...)
		out.Problems = append(out.Problems, bd.problems...)
	}
	b.mu.Lock()
	for name := range b.cache {
		if !seen[name] {
			delete(b.cache, name)
		}
	}
	b.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func isBundle(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return (ext == ".zip" || ext == ".skill") && !strings.HasPrefix(name, ".")
}

// load reads one bundle's directory and front matter.
func (b *Bundles) load(root *os.Root, name string, info fs.FileInfo) *bundle {
	full := filepath.Join(b.dir, name)
	bd := &bundle{size: info.Size(), mtime: info.ModTime()}
	problem := func(sev sources.Severity, rule, format string, args ...any) {
		bd.problems = append(bd.problems, sources.Diagnostic{Severity: sev, Path: full, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	zr, closer, err := openBundle(root, name, info.Size())
	if err != nil {
		problem(sources.Error, "bundle-unreadable", "%v; skipped", err)
		return bd
	}
	defer closer.Close()
	files, skillDirs := map[string]*zip.File{}, []string{}
	var total uint64
	for _, f := range zr.File {
		p, ok := entryPath(f, problem)
		if !ok {
			continue
		}
		if f.FileInfo().IsDir() {
			continue
		}
		if _, dup := files[p]; dup {
			problem(sources.Warning, "bundle-duplicate", "entry %q appears twice; the first is served", p)
			continue
		}
		total += f.UncompressedSize64
		if total > maxTotalBytes {
			problem(sources.Error, "bundle-too-large", "unpacks to more than %d MiB; the rest of it is not served", maxTotalBytes>>20)
			break
		}
		files[p] = f
		if path.Base(p) == sources.SkillFile {
			skillDirs = append(skillDirs, path.Dir(p))
		}
	}
	if len(skillDirs) == 0 {
		problem(sources.Error, "bundle-no-skill", "holds no SKILL.md; a bundle is a zip of a skill folder")
		return bd
	}
	slices.Sort(skillDirs)
	stem := strings.TrimSuffix(name, filepath.Ext(name))
	for _, dir := range skillDirs {
		folder := path.Base(dir)
		if dir == "." {
			folder = stem
		}
		entry := path.Join(dir, sources.SkillFile)
		where := full + "/" + entry
		data, err := readEntry(files[entry])
		if err != nil {
			bd.problems = append(bd.problems, sources.Diagnostic{Severity: sources.Error, Path: where, Rule: "bundle-entry", Message: err.Error() + "; skipped"})
			continue
		}
		front, err := sources.ReadFrontMatter(bytes.NewReader(data))
		if err != nil {
			bd.problems = append(bd.problems, sources.Diagnostic{Severity: sources.Error, Path: where, Rule: "front-matter", Message: err.Error() + "; skipped"})
			continue
		}
		mine := ownFiles(files, dir, skillDirs)
		var list []string
		for p := range mine {
			if p != sources.SkillFile {
				list = append(list, p)
			}
		}
		slices.Sort(list)
		// Dir is not a real folder: its last element is the skill
		// folder's name, which skillmux shows and compares the name with.
		loc := sources.Location{
			Path:     where,
			Dir:      full + "/" + path.Join(dir, "."),
			Folder:   folder,
			Files:    bundleFiles(b.dir, name, info, mine, files),
			FileList: list,
		}
		if dir == "." {
			loc.Dir = full + "/" + folder
		}
		sk, err := sources.NewSkill(front, loc, sources.LoadOptions{Source: b.name, Scope: sources.ScopeSourcePlugin})
		if err != nil {
			bd.problems = append(bd.problems, sources.AsDiagnostic(where, err))
			continue
		}
		bd.skills = append(bd.skills, sk)
	}
	return bd
}

// openBundle opens a bundle inside the folder (a symlink out of it is
// refused) and reads its directory.
func openBundle(root *os.Root, name string, size int64) (*zip.Reader, io.Closer, error) {
	if size > maxBundleBytes {
		return nil, nil, fmt.Errorf("larger than %d MiB", maxBundleBytes>>20)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, errors.New("not a regular file")
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("not a zip archive: %v", err)
	}
	if len(zr.File) > maxEntries {
		f.Close()
		return nil, nil, fmt.Errorf("holds %d entries; the limit is %d", len(zr.File), maxEntries)
	}
	return zr, f, nil
}

// entryPath checks an entry and returns its path, or reports why it is
// skipped.
func entryPath(f *zip.File, problem func(sources.Severity, string, string, ...any)) (string, bool) {
	name := f.Name
	if !utf8.ValidString(name) {
		problem(sources.Warning, "bundle-entry-name", "an entry's name is not UTF-8; skipped")
		return "", false
	}
	p := strings.TrimPrefix(strings.TrimSuffix(name, "/"), "./")
	if strings.ContainsRune(name, '\\') || strings.HasPrefix(name, "/") || !fs.ValidPath(p) {
		problem(sources.Warning, "bundle-zip-slip", "entry %q would leave its skill; skipped", name)
		return "", false
	}
	mode := f.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		problem(sources.Warning, "bundle-symlink", "entry %q is a symbolic link; skipped", name)
		return "", false
	case !mode.IsDir() && !mode.IsRegular():
		problem(sources.Warning, "bundle-special", "entry %q is not a regular file; skipped", name)
		return "", false
	case f.UncompressedSize64 > maxFileBytes:
		problem(sources.Warning, "bundle-file-too-large", "entry %q unpacks to %d bytes; the limit is %d MiB; skipped", name, f.UncompressedSize64, maxFileBytes>>20)
		return "", false
	case f.UncompressedSize64 > 1<<20 && f.UncompressedSize64 > maxRatio*max(f.CompressedSize64, 1):
		problem(sources.Warning, "bundle-zip-bomb", "entry %q is compressed %d times; skipped as a likely zip bomb", name, f.UncompressedSize64/max(f.CompressedSize64, 1))
		return "", false
	}
	return p, true
}

// ownFiles are the files of the skill in dir, relative to it: those
// under it and not under a deeper skill folder.
func ownFiles(files map[string]*zip.File, dir string, skillDirs []string) map[string]string {
	out := map[string]string{}
	prefix := dir + "/"
	if dir == "." {
		prefix = ""
	}
	for p := range files {
		rel, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		nested := false
		for _, other := range skillDirs {
			if other != dir && (dir == "." || strings.HasPrefix(other, prefix)) && strings.HasPrefix(p, other+"/") {
				nested = true
				break
			}
		}
		if !nested {
			out[rel] = p
		}
	}
	return out
}

// readEntry inflates an entry, refusing more than it declared or than
// maxFileBytes: the declared size may lie.
func readEntry(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	limit := min(int64(f.UncompressedSize64), maxFileBytes)
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", f.Name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s inflates past its declared %d bytes", f.Name, f.UncompressedSize64)
	}
	return data, nil
}

// Watch implements sources.Watcher by looking at the folder's bundles
// (names, sizes, modification times) every Poll.
func (b *Bundles) Watch(ctx context.Context, changed func()) error {
	last := b.stamp()
	t := time.NewTicker(b.poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if now := b.stamp(); now != last {
			last = now
			changed()
		}
	}
}

// stamp sums up the folder's bundles.
func (b *Bundles) stamp() string {
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		return "error: " + err.Error()
	}
	var s strings.Builder
	for _, e := range entries {
		if info, err := e.Info(); err == nil && isBundle(e.Name()) {
			fmt.Fprintf(&s, "%s\x00%d\x00%d\n", e.Name(), info.Size(), info.ModTime().UnixNano())
		}
	}
	return s.String()
}

// bundleFiles is the fs.FS of one skill of a bundle: its own files
// (mine: path in the skill → path in the bundle), each read by opening the
// bundle anew; a bundle that changed since it was listed is not read (the
// next listing will serve the new one).
func bundleFiles(root, name string, info fs.FileInfo, mine map[string]string, files map[string]*zip.File) fs.FS {
	sizes := make(map[string]int64, len(mine))
	for p, inZip := range mine {
		sizes[p] = int64(files[inZip].UncompressedSize64)
	}
	r := &bundleReader{root: root, name: name, size: info.Size(), mtime: info.ModTime(), files: mine}
	return sources.ListedFS(sizes, info.ModTime(), r.read)
}

// bundleReader reads a file of a skill from its bundle.
type bundleReader struct {
	root  string
	name  string
	size  int64
	mtime time.Time
	files map[string]string // path in the skill → path in the bundle
}

func (b *bundleReader) read(name string) ([]byte, error) {
	root, err := os.OpenRoot(b.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	info, err := root.Stat(b.name)
	if err != nil || info.Size() != b.size || !info.ModTime().Equal(b.mtime) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("the bundle changed since it was listed")}
	}
	zr, closer, err := openBundle(root, b.name, b.size)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer closer.Close()
	for _, f := range zr.File {
		if strings.TrimPrefix(f.Name, "./") == b.files[name] {
			data, err := readEntry(f)
			if err != nil {
				return nil, &fs.PathError{Op: "read", Path: name, Err: err}
			}
			return data, nil
		}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
