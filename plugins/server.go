package plugins

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pluginpb "github.com/skillmux/skillmux/plugins/proto"
	"github.com/skillmux/skillmux/sources"
)

// server serves a sources.Source over the protocol: the plugin's side.
type server struct {
	pluginpb.UnimplementedSkillSourceServer
	src     sources.Source
	version string

	// mu guards the fields below: the skills of the latest listing, by
	// id, for ReadFile, and the file digests of each skill, computed once
	// per *Skill (a source may return the same *Skill while it is
	// unchanged).
	mu      sync.Mutex
	byID    map[string]*sources.Skill
	digests map[*sources.Skill]digested
}

type digested struct {
	files []*pluginpb.FileInfo
	diags []*pluginpb.Diagnostic
}

func newServer(src sources.Source, version string) *server {
	return &server{src: src, version: version, byID: map[string]*sources.Skill{}, digests: map[*sources.Skill]digested{}}
}

func (s *server) Describe(_ context.Context, _ *pluginpb.DescribeRequest) (*pluginpb.DescribeResponse, error) {
	_, watch := s.src.(sources.Watcher)
	versions := make([]uint32, len(protocolVersions))
	for i, v := range protocolVersions {
		versions[i] = uint32(v)
	}
	return &pluginpb.DescribeResponse{
		Name:             s.src.Name(),
		ProtocolVersion:  ProtocolVersion,
		ProtocolVersions: versions,
		Capabilities:     &pluginpb.Capabilities{Watch: watch},
		Version:          s.version,
	}, nil
}

func (s *server) List(_ *pluginpb.ListRequest, stream pluginpb.SkillSource_ListServer) error {
	ctx := stream.Context()
	l, err := s.src.List(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return status.FromContextError(ctx.Err()).Err()
		}
		return status.Error(codes.Unavailable, err.Error())
	}
	byID := map[string]*sources.Skill{}
	digests := map[*sources.Skill]digested{}
	page := &pluginpb.ListResponse{}
	size := 0
	flush := func() error {
		err := stream.Send(page)
		page, size = &pluginpb.ListResponse{}, 0
		return err
	}
	for _, d := range l.Problems {
		page.Problems = append(page.Problems, diagnosticOut(d))
	}
	top := len(l.Skills) - l.NestedCount()
	for i, sk := range l.Skills {
		if err := ctx.Err(); err != nil {
			return status.FromContextError(err).Err()
		}
		if sk.Kind == sources.KindLearned {
			page.Problems = append(page.Problems, &pluginpb.Diagnostic{Severity: pluginpb.Diagnostic_ERROR, Path: validUTF8(sk.Path), Rule: "plugin-learned",
				Message: "learned notes are not served through source plugins; serve a skill folder instead"})
			continue
		}
		folder := filepath.Base(sk.Dir)
		if sk.Dir == "" || folder == "." || folder == string(filepath.Separator) || !validID(folder) || !utf8.ValidString(folder) {
			folder = sk.Ref.Name
		}
		id := folder
		if _, dup := byID[id]; dup {
			id = strconv.Itoa(i) + "/" + folder // keeps the folder name last
		}
		byID[id] = sk
		d, ok := s.cachedDigests(sk)
		if !ok {
			d = digestFiles(sk)
		}
		digests[sk] = d
		// Clipped: the skill's own diagnostics are appended to a copy, never
		// into the spare room of the digests kept for the next List.
		ps := &pluginpb.Skill{Id: id, FrontMatter: sk.FrontMatter, Files: d.files, Location: validUTF8(sk.Path), Diagnostics: slices.Clip(d.diags), Nested: i >= top}
		for _, diag := range sk.Diagnostics {
			ps.Diagnostics = append(ps.Diagnostics, diagnosticOut(diag))
		}
		page.Skills = append(page.Skills, ps)
		size += proto.Size(ps)
		if size >= maxPageBytes || len(page.Skills) >= maxPageSkills {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	s.mu.Lock()
	s.byID, s.digests = byID, digests
	s.mu.Unlock()
	return flush()
}

func (s *server) cachedDigests(sk *sources.Skill) (digested, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.digests[sk]
	return d, ok
}

// digestFiles lists the files of sk (SKILL.md first) with their sizes and
// digests, within MaxFiles and MaxSkillBytes; what does not fit is a
// diagnostic.
func digestFiles(sk *sources.Skill) digested {
	var d digested
	if sk.Files == nil {
		return d
	}
	fsys, done := sources.Pin(sk.Files)
	defer done()
	names := sk.FileList
	if names == nil {
		names, _, _ = sources.ListFiles(fsys, sources.SkillFile)
	}
	names = append([]string{sources.SkillFile}, names...)
	var total int64
	for _, name := range names {
		if !utf8.ValidString(name) {
			d.diags = append(d.diags, &pluginpb.Diagnostic{Path: validUTF8(sk.Path), Rule: "plugin-file-path",
				Message: fmt.Sprintf("file %q: its name is not valid UTF-8; it is not served", validUTF8(name))})
			continue
		}
		if len(d.files) == MaxFiles {
			d.diags = append(d.diags, &pluginpb.Diagnostic{Path: validUTF8(sk.Path), Rule: "plugin-too-many-files",
				Message: fmt.Sprintf("more than %d files; the rest are not served", MaxFiles)})
			break
		}
		size, sum, err := digestFile(fsys, name, MaxSkillBytes-total)
		if err != nil {
			d.diags = append(d.diags, &pluginpb.Diagnostic{Path: validUTF8(path.Join(sk.Path, "..", name)), Rule: "plugin-file",
				Message: "not served: " + err.Error()})
			continue
		}
		total += size
		d.files = append(d.files, &pluginpb.FileInfo{Path: name, Size: size, Sha256: sum})
	}
	return d
}

func digestFile(fsys fs.FS, name string, limit int64) (int64, []byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	if !st.Mode().IsRegular() {
		return 0, nil, sources.ErrNotRegular
	}
	if st.Size() > limit {
		return 0, nil, fmt.Errorf("%w: the skill's files would hold more than %d MiB", sources.ErrTooLarge, MaxSkillBytes>>20)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limit+1))
	if err != nil {
		return 0, nil, err
	}
	if n > limit {
		return 0, nil, sources.ErrTooLarge
	}
	return n, h.Sum(nil), nil
}

func (s *server) ReadFile(req *pluginpb.ReadFileRequest, stream pluginpb.SkillSource_ReadFileServer) error {
	s.mu.Lock()
	sk := s.byID[req.SkillId]
	s.mu.Unlock()
	if sk == nil || sk.Files == nil {
		return status.Errorf(codes.NotFound, "no skill %q in the last listing", req.SkillId)
	}
	if !validPath(req.Path) {
		return status.Errorf(codes.InvalidArgument, "invalid path %q", req.Path)
	}
	f, err := sk.Files.Open(req.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return status.Errorf(codes.NotFound, "%s: no such file", req.Path)
	}
	if err != nil {
		return status.Error(codes.Unavailable, err.Error())
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return status.Error(codes.Unavailable, err.Error())
	}
	if !st.Mode().IsRegular() {
		return status.Errorf(codes.FailedPrecondition, "%s: %v", req.Path, sources.ErrNotRegular)
	}
	if st.Size() > MaxSkillBytes {
		return status.Errorf(codes.ResourceExhausted, "%s: %d bytes; the limit is %d", req.Path, st.Size(), MaxSkillBytes)
	}
	h := sha256.New()
	buf := make([]byte, chunkSize)
	first := true
	var sent int64
	for {
		n, err := io.ReadFull(f, buf)
		if n > 0 || first {
			sent += int64(n)
			if sent > st.Size() {
				return status.Errorf(codes.Aborted, "%s grew while being read", req.Path)
			}
			h.Write(buf[:n])
			c := &pluginpb.FileChunk{Data: buf[:n]}
			if first {
				c.Size, first = st.Size(), false
			}
			if sent == st.Size() {
				c.Sha256 = h.Sum(nil)
			}
			if err := stream.Send(c); err != nil {
				return err
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if sent != st.Size() {
				return status.Errorf(codes.Aborted, "%s changed while being read", req.Path)
			}
			return nil
		}
		if err != nil {
			return status.Error(codes.Unavailable, err.Error())
		}
	}
}

func (s *server) Watch(_ *pluginpb.WatchRequest, stream pluginpb.SkillSource_WatchServer) error {
	w, ok := s.src.(sources.Watcher)
	if !ok {
		return status.Error(codes.Unimplemented, "this plugin does not watch for changes")
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	kick := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- w.Watch(ctx, func() {
			select {
			case kick <- struct{}{}:
			default:
			}
		})
	}()
	for {
		select {
		case err := <-done:
			if errors.Is(err, sources.ErrNotWatched) {
				return status.Error(codes.Unimplemented, err.Error())
			}
			if err != nil && ctx.Err() == nil {
				return status.Error(codes.Unavailable, err.Error())
			}
			return nil
		case <-kick:
			if err := stream.Send(&pluginpb.WatchEvent{}); err != nil {
				cancel()
				<-done
				return err
			}
		}
	}
}

func diagnosticOut(d sources.Diagnostic) *pluginpb.Diagnostic {
	sev := pluginpb.Diagnostic_WARNING
	if d.Severity == sources.Error {
		sev = pluginpb.Diagnostic_ERROR
	}
	return &pluginpb.Diagnostic{Severity: sev, Path: validUTF8(d.Path), Line: int32(min(d.Line, 1<<30)), Field: validUTF8(d.Field), Rule: validUTF8(d.Rule), Message: validUTF8(d.Message)}
}

// validUTF8 makes s fit for a protobuf string, which must be UTF-8:
// gRPC refuses a whole message otherwise.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
