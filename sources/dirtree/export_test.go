package dirtree

// DeferAll makes every deferred first scan stay shallow, however small the
// tree, for the tests of what a deferred scan leaves for later; the
// returned function undoes it.
func DeferAll() (undo func()) {
	deferAll.Add(1)
	return func() { deferAll.Add(-1) }
}
