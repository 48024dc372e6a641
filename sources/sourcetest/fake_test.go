package sourcetest_test

import (
	"testing"

	"github.com/skillmux/skillmux/sources/sourcetest"
)

func TestFakeConforms(t *testing.T) {
	sourcetest.Run(t, &sourcetest.Fake{SourceName: "fake", Skills: []sourcetest.FakeSkill{
		{Name: "a", Description: "A.", Files: map[string]string{"ref.md": "r"}},
		{Name: "b", Description: "B."},
	}})
}
