package sources

import (
	"testing"
	"time"
)

// LaterClock moves the clock that tells racy entries an hour on for the
// test, so that files it wrote are out of the racy window at once.
func LaterClock(t testing.TB) {
	now = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { now = time.Now })
}
