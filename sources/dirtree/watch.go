package dirtree

import (
	"context"
)

// watch completes a deferred scan, then follows the tree's changes.
func (t *Tree) watch(ctx context.Context, changed func()) error {
	if err := t.complete(ctx); err != nil {
		return err
	}
	changed()
	<-ctx.Done()
	return nil
}

// complete runs the deep scan that Defer postponed: the skills nested in
// other skills and each skill's file list. The next List returns its
// result without scanning.
func (t *Tree) complete(ctx context.Context) error {
	t.scanning.Lock()
	defer t.scanning.Unlock()
	if t.st != nil && t.st.deep {
		return nil
	}
	if err := t.scanAll(ctx, true); err != nil {
		return err
	}
	t.mu.Lock()
	t.pending.current = true
	t.mu.Unlock()
	return nil
}
