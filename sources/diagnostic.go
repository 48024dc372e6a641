package sources

import (
	"errors"
	"fmt"
	"strings"
)

// Severity ranks a Diagnostic.
type Severity int

const (
	// Warning is a problem that does not stop a skill from being served.
	Warning Severity = iota
	// Error is a problem that makes a skill (or a whole source) unusable.
	Error
)

func (s Severity) String() string {
	if s == Error {
		return "error"
	}
	return "warning"
}

// MarshalText lets a Severity appear as "warning" or "error" in JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Diagnostic is one finding about a file: which file, which field, which
// rule, and what would be right.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	// Path is the file (or folder) the finding is about.
	Path string `json:"path"`
	// Line is the 1-based line in Path, when known.
	Line int `json:"line,omitempty"`
	// Field is the front matter key concerned, if any.
	Field string `json:"field,omitempty"`
	// Rule is a short stable identifier of the rule, such as "name-format".
	Rule string `json:"rule,omitempty"`
	// Message says what is wrong and what would be right.
	Message string `json:"message"`
}

// String formats the diagnostic as "path:line: severity: field: message (rule)".
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.Path)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
	}
	b.WriteString(": ")
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	if d.Field != "" {
		b.WriteString(d.Field)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	if d.Rule != "" {
		fmt.Fprintf(&b, " [%s]", d.Rule)
	}
	return b.String()
}

// UnmarshalText reads "warning" or "error".
func (s *Severity) UnmarshalText(b []byte) error {
	switch string(b) {
	case "warning":
		*s = Warning
	case "error":
		*s = Error
	default:
		return fmt.Errorf("unknown severity %q", b)
	}
	return nil
}

// Error makes a Diagnostic usable as an error, so Load can return one.
func (d Diagnostic) Error() string { return d.String() }

// AsDiagnostic returns err as a Diagnostic about path: err itself when it
// is one, else an error-severity Diagnostic carrying its message.
func AsDiagnostic(path string, err error) Diagnostic {
	var d Diagnostic
	if errors.As(err, &d) {
		return d
	}
	return Diagnostic{Severity: Error, Path: path, Message: err.Error()}
}
