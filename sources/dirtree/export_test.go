package dirtree

// DeferAll makes every deferred first scan stay shallow, however small the
// tree, for the tests of what a deferred scan leaves for later; the
// returned function undoes it.
func DeferAll() (undo func()) {
	deferAll.Add(1)
	return func() { deferAll.Add(-1) }
}

// Untimed lifts the time bound of the whole scan of a small tree, which a
// busy machine may run past; the returned function undoes it.
func Untimed() (undo func()) {
	untimed.Add(1)
	return func() { untimed.Add(-1) }
}
