package plugins

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"

	pluginpb "github.com/skillmux/skillmux/plugins/proto"
	"github.com/skillmux/skillmux/sources"
)

// remote turns a plugin's answers into what skillmux serves: listings of
// skills judged as local ones are, and files read within bounds. It knows
// nothing of processes: client returns the connection in use, which
// changes when a plugin is restarted.
type remote struct {
	name      string     // the source's name
	namespace string     // qualifies every skill; "" for plain names
	cache     *copyCache // nil: no local copies
	// client returns the plugin's client now, or why there is none.
	client func() (pluginpb.SkillSourceClient, error)
	// fileCtx bounds a read of a skill's file, which fs.FS gives no
	// context: the source's life, and the call deadline.
	fileCtx func() (context.Context, context.CancelFunc)
	// reading, when set, bounds the reads of files through the plugin
	// under way at once (its capacity), and admitted counts those under
	// way and those waiting their turn, of which there may be as many
	// again: a plugin that hangs holds that many of the server's requests,
	// not every one it is sent.
	reading  chan struct{}
	admitted atomic.Int32
	// copyWithin bounds the making of a local copy as a whole (each file's
	// read has fileCtx's deadline): no file's read starts past it, and the
	// files are then read through the plugin. 0: no bound.
	copyWithin time.Duration
	// copyFailed is told, once per skill, why a local copy could not be
	// made; the file is then read through the plugin.
	copyFailed func(id string, err error)
	// readDone, when set, is told how each read of a file through the
	// client c ended (nil: it was answered), so that reads that time out
	// count among the calls after which a hung plugin is restarted.
	readDone func(c pluginpb.SkillSourceClient, err error)

	// mu guards last: the skills of the last listing, by id. A skill
	// listed again with nothing changed is given back as the same
	// *sources.Skill, as the Source contract allows, so that what follows
	// the catalog (the search index) sees no change and reads nothing
	// again, and its local copy is not looked for again.
	mu   sync.Mutex
	last map[string]*sources.Skill
}

// address is where a skill of the plugin lives, for Skill.Path and
// diagnostics.
func (r *remote) address(id string) string { return "plugin://" + r.name + "/" + id }

// fileMeta is a file of a skill as listed.
type fileMeta struct {
	path   string
	size   int64
	sha256 []byte
}

// list asks the plugin for its listing, within ctx, and checks it.
func (r *remote) list(ctx context.Context, c pluginpb.SkillSourceClient) (*sources.Listing, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream when the listing is cut short
	stream, err := c.List(ctx, &pluginpb.ListRequest{}, grpc.MaxCallRecvMsgSize(maxMessage))
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	prev := r.last
	r.mu.Unlock()
	b := &builder{r: r, seen: map[string]bool{}, out: &sources.Listing{}, prev: prev, next: map[string]*sources.Skill{}}
	for {
		page, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if tooLargeMessage(err) {
			return nil, fmt.Errorf("the plugin sent a page of its listing over the %d MiB one message may hold: send the skills in smaller pages (plugins.Serve starts a new one past 1 MiB), each skill's front matter at most %d KiB", maxMessage>>20, sources.MaxFrontMatter>>10)
		}
		if err != nil {
			return nil, err
		}
		if !b.page(page) {
			break
		}
	}
	// Nested skills last, wherever the plugin put them.
	b.out.Skills = append(b.out.Skills, b.nested...)
	b.out.Nested = len(b.nested)
	if b.dropped > 0 {
		b.out.Problems = append(b.out.Problems, sources.Diagnostic{Severity: sources.Warning, Path: r.address(""), Rule: "plugin-problems",
			Message: fmt.Sprintf("%d more problems were reported by the plugin and left out", b.dropped)})
	}
	r.mu.Lock()
	r.last = b.next
	r.mu.Unlock()
	return b.out, nil
}

// builder checks a listing page by page.
type builder struct {
	r       *remote
	out     *sources.Listing
	nested  []*sources.Skill // the skills the plugin says are nested, for the end of out
	seen    map[string]bool
	skills  int
	dropped int // problems past maxProblems

	prev, next map[string]*sources.Skill // by id: the last listing's skills, and this one's
}

// page adds a page; false means the listing is full and the rest is
// left out.
func (b *builder) page(p *pluginpb.ListResponse) bool {
	for _, d := range p.Problems {
		b.problem(b.r.diagnosticIn(d, b.r.address("")))
	}
	for _, ps := range p.Skills {
		if b.skills == MaxSkills {
			b.problem(sources.Diagnostic{Severity: sources.Error, Path: b.r.address(""), Rule: "plugin-too-many-skills",
				Message: fmt.Sprintf("the plugin lists more than %d skills; the rest are not served", MaxSkills)})
			return false
		}
		b.skills++
		b.skill(ps)
	}
	return true
}

func (b *builder) problem(d sources.Diagnostic) {
	if len(b.out.Problems) >= maxProblems {
		b.dropped++
		return
	}
	b.out.Problems = append(b.out.Problems, d)
}

func (b *builder) skill(ps *pluginpb.Skill) {
	r := b.r
	id := ps.Id
	if !validID(id) {
		b.problem(sources.Diagnostic{Severity: sources.Error, Path: r.address(""), Rule: "plugin-skill-id",
			Message: fmt.Sprintf("skill id %q is not a relative path of plain names (valid UTF-8, no '.', '..', ':' or '\\', at most %d bytes); the skill is not served", clean(id, false), MaxIDBytes)})
		return
	}
	if b.seen[id] {
		b.problem(sources.Diagnostic{Severity: sources.Error, Path: r.address(id), Rule: "plugin-skill-id",
			Message: fmt.Sprintf("skill id %q is listed twice; only the first is served", id)})
		return
	}
	b.seen[id] = true
	entry := r.address(id) + "/" + sources.SkillFile
	var diags []sources.Diagnostic
	warn := func(rule, format string, args ...any) {
		diags = append(diags, sources.Diagnostic{Severity: sources.Warning, Path: entry, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	files := map[string]fileMeta{}
	var total int64
	// The files past MaxFiles: one warning names the first and counts
	// them, rather than one warning each.
	var over int
	var firstOver string
	// SKILL.md is taken first, so that the limits on files and bytes,
	// which the rest share, never leave the skill without it.
	given := ps.Files
	if i := slices.IndexFunc(given, func(f *pluginpb.FileInfo) bool { return f.Path == sources.SkillFile }); i > 0 {
		given = slices.Concat(given[i:i+1], given[:i], given[i+1:])
	}
	for _, f := range given {
		switch {
		case !validPath(f.Path):
			warn("plugin-file-path", "file %q is not a relative path inside the skill; it is not served", clean(f.Path, false))
			continue
		case files[f.Path].sha256 != nil:
			warn("plugin-file-path", "file %q is listed twice; the first is served", f.Path)
			continue
		case f.Size < 0:
			warn("plugin-file-size", "file %q is listed with a size of %d bytes, which no file has; it is not served", f.Path, f.Size)
			continue
		case f.Size > MaxSkillBytes || total+f.Size > MaxSkillBytes:
			warn("plugin-file-size", "file %q of %d bytes would take the skill past %d MiB; it is not served", f.Path, f.Size, MaxSkillBytes>>20)
			continue
		case len(f.Sha256) != sha256.Size:
			warn("plugin-file-digest", "file %q has no SHA-256 digest (%d bytes instead of 32); it is not served", f.Path, len(f.Sha256))
			continue
		case len(files) == MaxFiles:
			if over == 0 {
				firstOver = f.Path
			}
			over++
			continue
		}
		total += f.Size
		files[f.Path] = fileMeta{path: f.Path, size: f.Size, sha256: f.Sha256}
	}
	// A path listed as a file and as a folder of others ("refs" and
	// "refs/a.md") cannot be both in the skill's folder: the file goes,
	// unless it is the SKILL.md, whose skill would go with it.
	for _, p := range slices.Sorted(maps.Keys(files)) {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, both := files[d]; !both {
				continue
			}
			if d == sources.SkillFile {
				warn("plugin-file-path", "file %q lies in a folder %s, which is the skill's SKILL.md; it is not served", p, d)
				delete(files, p)
				break
			}
			warn("plugin-file-path", "file %q is also the folder of %q; the file is not served", d, p)
			delete(files, d)
		}
	}
	if over > 0 {
		warn("plugin-too-many-files", "more than %d files; %d are not served, the first of them %q", MaxFiles, over, firstOver)
	}
	if _, ok := files[sources.SkillFile]; !ok {
		b.problem(sources.Diagnostic{Severity: sources.Error, Path: entry, Rule: "plugin-no-entry",
			Message: "the plugin lists no readable SKILL.md for this skill; it is not served"})
		return
	}
	if d, over := sources.Oversized(entry, files[sources.SkillFile].size); over {
		b.problem(d) // as a local one: never offered, since it cannot be loaded
		return
	}
	if !utf8.Valid(ps.FrontMatter) {
		b.problem(sources.Diagnostic{Severity: sources.Error, Path: entry, Rule: "plugin-utf8",
			Message: "the front matter is not valid UTF-8; the skill is not served"})
		return
	}
	var list []string
	for p := range files {
		if p != sources.SkillFile {
			list = append(list, p)
		}
	}
	slices.Sort(list)
	folder := path.Base(id)
	rfs := newRemoteFS(r, id, files, ps.FrontMatter)
	rfs.key = contentKey(files, ps.FrontMatter)
	dir := r.address(id)
	if r.cache != nil {
		rfs.dir = filepath.Join(r.cache.root, rfs.key, folder)
		dir = rfs.dir
	}
	loc := sources.Location{Path: entry, Dir: dir, Folder: folder, Files: rfs, FileList: list}
	sk, err := sources.NewSkill(ps.FrontMatter, loc, sources.LoadOptions{Namespace: r.namespace, Source: r.name, Scope: sources.ScopeSourcePlugin, Kind: sources.KindSkill})
	if err != nil {
		b.problem(sources.AsDiagnostic(entry, err))
		return
	}
	own := map[string]bool{}
	for _, d := range sk.Diagnostics {
		own[d.Rule+"\x00"+d.Field+"\x00"+d.Message] = true
	}
	for i, d := range ps.Diagnostics {
		if i == maxSkillDiagnostics {
			warn("plugin-problems", "%d more diagnostics from the plugin were left out", len(ps.Diagnostics)-i)
			break
		}
		dd := r.diagnosticIn(d, entry)
		if !own[dd.Rule+"\x00"+dd.Field+"\x00"+dd.Message] { // the plugin judged the front matter too
			diags = append(diags, dd)
		}
	}
	sk.Diagnostics = append(sk.Diagnostics, diags...)
	if old := b.prev[id]; old != nil && sameSkill(old, sk) {
		sk = old
	}
	b.next[id] = sk
	if ps.Nested {
		b.nested = append(b.nested, sk)
		return
	}
	b.out.Skills = append(b.out.Skills, sk)
}

// sameSkill reports whether two listings of a skill give the same skill:
// the same front matter, files (by their content key) and diagnostics.
func sameSkill(a, b *sources.Skill) bool {
	af, aok := a.Files.(*remoteFS)
	bf, bok := b.Files.(*remoteFS)
	return aok && bok && af.key == bf.key &&
		a.Ref == b.Ref && a.Path == b.Path && a.Dir == b.Dir &&
		bytes.Equal(a.FrontMatter, b.FrontMatter) &&
		slices.Equal(a.FileList, b.FileList) && a.FileListTruncated == b.FileListTruncated &&
		slices.Equal(a.Diagnostics, b.Diagnostics)
}

// contentKey names a skill's content: a digest of its files' paths,
// sizes and digests, and of the front matter its listing gave. Equal keys
// mean equal files, listed with the same front matter: a copy is made only
// of a SKILL.md whose front matter is the listed one (remoteFS.fetch), so
// a copy found under a key was checked against that front matter.
func contentKey(files map[string]fileMeta, front []byte) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	h := sha256.New()
	io.WriteString(h, "skillmux plugin skill v2\n")
	fmt.Fprintf(h, "%d\x00%s\n", len(front), front)
	for _, p := range paths {
		f := files[p]
		fmt.Fprintf(h, "%s\x00%d\x00%x\n", p, f.size, f.sha256)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// diagnosticIn is a diagnostic the plugin sent, made safe to show, about
// where when it names no path. A path of the plugin's own (a bundle, a
// file it read) is placed under the plugin's address: alone, it would not
// say which of several plugins reports it.
func (r *remote) diagnosticIn(d *pluginpb.Diagnostic, where string) sources.Diagnostic {
	out := sources.Diagnostic{Severity: sources.Warning, Path: clean(d.Path, false), Line: int(max(d.Line, 0)),
		Field: clean(d.Field, false), Rule: clean(d.Rule, false), Message: clean(d.Message, true)}
	if d.Severity == pluginpb.Diagnostic_ERROR {
		out.Severity = sources.Error
	}
	switch base := r.address(""); {
	case out.Path == "":
		out.Path = where
	case !strings.HasPrefix(out.Path, base):
		out.Path = r.address(strings.TrimPrefix(out.Path, "/"))
	}
	if out.Message == "" {
		out.Message = "(the plugin gave no message)"
	}
	return out
}

// readFile reads one listed file through the plugin, within ctx, and
// checks it against the listing: its size, its chunks and its digest.
func (r *remote) readFile(ctx context.Context, id string, m fileMeta) (data []byte, err error) {
	fail := func(err error) ([]byte, error) {
		return nil, &fs.PathError{Op: "read", Path: m.path, Err: r.named(err)}
	}
	c, err := r.client()
	if err != nil {
		return fail(err)
	}
	if r.readDone != nil {
		defer func() { r.readDone(c, err) }()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.ReadFile(ctx, &pluginpb.ReadFileRequest{SkillId: id, Path: m.path}, grpc.MaxCallRecvMsgSize(maxChunk+(64<<10)))
	if err != nil {
		return fail(plainError(err))
	}
	buf := make([]byte, 0, m.size)
	h := sha256.New()
	var said []byte
	first := true
	for {
		ch, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(plainError(err))
		}
		if first && ch.Size != m.size {
			return fail(fmt.Errorf("%w: the plugin sends %d bytes but listed %d", errBadFile, ch.Size, m.size))
		}
		first = false
		if len(ch.Data) > maxChunk || int64(len(buf)+len(ch.Data)) > m.size {
			return fail(fmt.Errorf("%w: the plugin sends more than the %d bytes it listed", errBadFile, m.size))
		}
		buf = append(buf, ch.Data...)
		h.Write(ch.Data)
		if len(ch.Sha256) > 0 {
			said = ch.Sha256
		}
	}
	got := h.Sum(nil)
	switch {
	case first:
		return fail(fmt.Errorf("%w: the plugin sent nothing", errBadFile))
	case int64(len(buf)) != m.size:
		return fail(fmt.Errorf("%w: %d bytes of the %d listed", errBadFile, len(buf), m.size))
	case !bytes.Equal(got, m.sha256), said != nil && !bytes.Equal(said, got):
		return fail(fmt.Errorf("%w: the content does not match its listed SHA-256 digest", errBadFile))
	}
	return buf, nil
}

// errBadFile means a plugin sent a file other than the one it listed.
var errBadFile = errors.New("the source plugin sent a bad file")

// turn waits for the turn of a read of a file of the plugin (see
// reading), for at most the plugin's timeout, and returns the function
// that ends it, or why there is none: the plugin is busy. The read's own
// deadline starts once it has its turn: waiting is not the plugin's
// answering late.
func (r *remote) turn(path string) (end func(), err error) {
	if r.reading == nil {
		return func() {}, nil
	}
	busy := func(why string) error {
		return &fs.PathError{Op: "read", Path: path, Err: r.named(fmt.Errorf("%w: %s; try again in a moment", errBusy, why))}
	}
	if r.admitted.Add(1) > int32(2*cap(r.reading)) {
		r.admitted.Add(-1)
		return nil, busy(fmt.Sprintf("%d reads of its files are under way and %d more wait their turn", cap(r.reading), cap(r.reading)))
	}
	ctx, cancel := r.fileCtx()
	defer cancel()
	select {
	case r.reading <- struct{}{}:
		return func() { <-r.reading; r.admitted.Add(-1) }, nil
	case <-ctx.Done():
		r.admitted.Add(-1)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, busy(fmt.Sprintf("its turn among %d reads of its files did not come within its timeout", 2*cap(r.reading)))
		}
		return nil, &fs.PathError{Op: "read", Path: path, Err: ctx.Err()}
	}
}

// named is err with the plugin's name where it says "the source plugin"
// (errNoAnswer, errNotRunning, errBusy, plainError's words): an agent, or
// a user reading a log, is told which plugin failed. Errors are matched
// with errors.Is all the same.
func (r *remote) named(err error) error {
	if err == nil || r.name == "" || !strings.Contains(err.Error(), sourcePlugin) {
		return err
	}
	return &namedError{err: err, name: r.name}
}

const sourcePlugin = "the source plugin"

type namedError struct {
	err  error
	name string
}

func (e *namedError) Error() string {
	return strings.Replace(e.err.Error(), sourcePlugin, sourcePlugin+" "+e.name, 1)
}

func (e *namedError) Unwrap() error { return e.err }

// errBusy is why a read of a plugin's file was not made: the plugin has
// as many under way as it may (maxReading) and as many waiting their
// turn, or none of those under way ended within its timeout.
var errBusy = errors.New("the source plugin is busy")

// maxReading bounds the reads of one plugin's files under way at once
// (as many more may wait their turn), and readingWait how long a read
// waits for a local copy another is making.
const (
	maxReading  = 16
	readingWait = time.Second
)
