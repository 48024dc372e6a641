//go:build !linux

package pseudofs

func pseudoMount(string) string { return "" }
