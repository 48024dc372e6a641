package claudeplugins

import (
	"path/filepath"
	"time"
)

// SetRecordPoll sets how often Watch looks at the install records and
// settings, for the test's duration.
func SetRecordPoll(t interface{ Cleanup(func()) }, d time.Duration) {
	old := recordPoll
	recordPoll = d
	t.Cleanup(func() { recordPoll = old })
}

// InstalledFile is the path of the install records under home's ~/.claude.
func InstalledFile(home string) string { return installedIn(filepath.Join(home, ".claude")) }
