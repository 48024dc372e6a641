//go:build !linux

package dirtree

func pseudoMount(string) string { return "" }
