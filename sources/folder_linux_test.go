package sources

import (
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func record(name string, typ byte) []byte {
	n := 19 + len(name) + 1
	n = (n + 7) &^ 7
	b := make([]byte, n)
	binary.LittleEndian.PutUint64(b[0:], 42)
	binary.LittleEndian.PutUint16(b[16:], uint16(n))
	b[18] = typ
	copy(b[19:], name)
	return b
}

func TestParseDirents(t *testing.T) {
	var buf []byte
	for _, r := range []struct {
		name string
		typ  byte
	}{{".", syscall.DT_DIR}, {"..", syscall.DT_DIR}, {"SKILL.md", syscall.DT_REG}, {"refs", syscall.DT_DIR}, {"link", syscall.DT_LNK}, {"odd", syscall.DT_UNKNOWN}, {"fifo", syscall.DT_FIFO}} {
		buf = append(buf, record(r.name, r.typ)...)
	}
	buf = append(buf, 1, 2, 3) // a torn record at the end is ignored
	got := parseDirents(buf, nil)
	want := []DirEntry{{"SKILL.md", 0}, {"refs", fs.ModeDir}, {"link", fs.ModeSymlink}, {"odd", fs.ModeIrregular}, {"fifo", fs.ModeNamedPipe}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// ReadFolder agrees with os.ReadDir on a real folder, large enough to
// need several reads of the kernel's buffer, and its key is the folder's.
func TestReadFolderAgreesWithTheStandardLibrary(t *testing.T) {
	dir := t.TempDir()
	for i := range 2000 {
		name := filepath.Join(dir, "entry-with-a-rather-long-name-"+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676)))
		if i%3 == 0 {
			os.Mkdir(name, 0o755)
		} else {
			os.WriteFile(name, nil, 0o644)
		}
	}
	got, key, err := ReadFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	std, _ := os.ReadDir(dir)
	var want []DirEntry
	for _, e := range std {
		want = append(want, DirEntry{e.Name(), e.Type()})
	}
	slices.SortFunc(got, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if now, ok := folderKey(dir); !ok || now != key {
		t.Errorf("key %+v, a stat of the folder says %+v (a folder: %v)", key, now, ok)
	}
}
