// Package jsonkind names the kind of a JSON value in JSON's own words, for
// messages that say what a value should have been and what it was.
package jsonkind

import (
	"encoding/json"
	"strings"
)

// Of names the kind of raw: "null", "an object", "an array", "a string",
// "a boolean" or "a number".
func Of(raw json.RawMessage) string {
	switch s := strings.TrimSpace(string(raw)); {
	case s == "null":
		return "null"
	case strings.HasPrefix(s, "{"):
		return "an object"
	case strings.HasPrefix(s, "["):
		return "an array"
	case strings.HasPrefix(s, `"`):
		return "a string"
	case s == "true" || s == "false":
		return "a boolean"
	default:
		return "a number"
	}
}
