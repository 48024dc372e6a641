package config

import "github.com/skillmux/skillmux/internal/yamlerr"

// syntaxError turns the error of parse(data) into an Error on the line to
// fix (see internal/yamlerr).
func syntaxError(file string, data []byte, err error, parse func([]byte) error) *Error {
	line, msg := yamlerr.Locate(data, 0, err, parse)
	return &Error{File: file, Line: line, Message: msg}
}
