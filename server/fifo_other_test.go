//go:build !unix

package server_test

import "errors"

func makeFIFO(string) error { return errors.New("not supported") }
