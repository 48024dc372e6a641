package claudeplugins

import (
	"path/filepath"
	"testing"

	"github.com/skillmux/skillmux/internal/watch"
)

// A skill folder is touched by a path in it or by a folder around it,
// and by no other, however the paths sort.
func TestTouched(t *testing.T) {
	s := &Source{watcher: &watch.Watcher{}}
	j := filepath.Join
	s.touch(watch.Batch{Paths: []string{j("/p", "one-two", "x.md"), j("/p", "one", "refs", "a.md"), j("/q")}})
	touched := s.takeTouched()
	for dir, want := range map[string]bool{
		j("/p", "one"):     true,  // a file in it
		j("/p", "one-two"): true,  // a file in it
		j("/p", "on"):      false, // a name that begins the same
		j("/p", "three"):   false,
		j("/q", "skill"):   true, // a folder around it
		j("/q"):            true, // the folder itself
	} {
		if got := touched(dir); got != want {
			t.Errorf("touched(%s) = %v, want %v", dir, got, want)
		}
	}
	if all := s.takeTouched(); !all(j("/p", "three")) {
		t.Error("a listing that no watch report asked for must list every folder")
	}
}
