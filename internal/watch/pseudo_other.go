//go:build !linux

package watch

func pseudoMount(string) bool { return false }
