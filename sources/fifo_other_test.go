//go:build !unix

package sources_test

import "errors"

func makeFIFO(string) error { return errors.New("not supported") }
