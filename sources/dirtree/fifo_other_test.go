//go:build !unix

package dirtree_test

import "errors"

func mkfifo(string) error { return errors.New("not supported") }
