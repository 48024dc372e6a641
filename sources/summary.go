package sources

import (
	"fmt"
	"strconv"
	"time"
)

// frontSummary is what serving reads of a front matter: its keys, for the
// unknown-key warning, the name and the description with their YAML
// types, and the two invocation flags. scanFrontMatter reads one straight
// from the bytes; summarize makes one from the YAML library's map. newSkill
// judges a skill by its summary only, so both paths give the same skill.
type frontSummary struct {
	// keys are the top-level keys, sorted.
	keys []string
	// name and description are absent when the key is missing.
	name, description fieldValue
	// disableModelInvocation is true when disable-model-invocation is the
	// YAML boolean true; userInvocable is false when user-invocable is the
	// YAML boolean false. Any other value leaves the default.
	disableModelInvocation, userInvocable bool
	// disableValue and userValue are those two values as written (absent
	// when missing), for the warning about one that is not a boolean.
	disableValue, userValue fieldValue
}

// valueKind is the YAML type of a front matter value, as the lenient
// checks tell types apart.
type valueKind uint8

const (
	absentValue valueKind = iota
	nullValue
	stringValue
	boolValue
	intValue
	floatValue
	dateValue // a plain scalar YAML reads as a timestamp: 2024-01-02
	listValue
	mapValue
	otherValue // a type the YAML library decodes rarely
	plainValue // inside the scanner only: a plain scalar not resolved yet
)

// fieldValue is a front matter value as the lenient checks read it: its
// kind and, for scalars, its text.
type fieldValue struct {
	kind valueKind
	// text is the string itself, or a boolean, a number or a date as
	// written (2.10 stays 2.10, not the 2.1 the YAML library decodes; a
	// value nested below the top level, as fmt.Sprint prints it); for
	// otherValue, the type's name as yamlType gives it.
	text string
}

// valueOf classifies v, a value decoded by the YAML library. written is
// the value's text as written when it is a boolean, a number or a date,
// which the library decodes into a value that prints otherwise; "" when
// not known.
func valueOf(v any, written string) fieldValue {
	switch v := v.(type) {
	case nil:
		return fieldValue{kind: nullValue}
	case string:
		return fieldValue{kind: stringValue, text: v}
	case bool:
		if written == "" {
			written = strconv.FormatBool(v)
		}
		return fieldValue{kind: boolValue, text: written}
	case int, int64, uint64:
		if written == "" {
			written = fmt.Sprint(v)
		}
		return fieldValue{kind: intValue, text: written}
	case float64:
		if written == "" {
			written = fmt.Sprint(v)
		}
		return fieldValue{kind: floatValue, text: written}
	case time.Time:
		if written == "" {
			written = dateText(v)
		}
		return fieldValue{kind: dateValue, text: written}
	case []any:
		return fieldValue{kind: listValue}
	case map[string]any:
		return fieldValue{kind: mapValue}
	default:
		return fieldValue{kind: otherValue, text: yamlType(v)}
	}
}

// typeName names the kind in messages, as yamlType does.
func (v fieldValue) typeName() string {
	switch v.kind {
	case nullValue:
		return "null"
	case stringValue:
		return "a string"
	case boolValue:
		return "a boolean"
	case intValue:
		return "an integer"
	case floatValue:
		return "a number"
	case dateValue:
		return "a date"
	case listValue:
		return "a list"
	case mapValue:
		return "a map"
	}
	return v.text
}

// dateText writes a date the YAML library decoded, as it was most likely
// written: the day alone when it has no time of day.
func dateText(t time.Time) string {
	if t.Location() == time.UTC && t.Equal(t.Truncate(24*time.Hour)) {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339Nano)
}

// summarize makes the summary of a front matter parsed by the YAML
// library; written holds the top-level values read as booleans, numbers
// or dates, as written.
func summarize(fm map[string]any, written map[string]string) frontSummary {
	s := frontSummary{keys: sortedKeys(fm), userInvocable: true}
	if v, ok := fm["name"]; ok {
		s.name = valueOf(v, written["name"])
	}
	if v, ok := fm["description"]; ok {
		s.description = valueOf(v, written["description"])
	}
	if v, ok := fm["disable-model-invocation"]; ok {
		s.disableValue = valueOf(v, written["disable-model-invocation"])
		s.disableModelInvocation, _ = v.(bool)
	}
	if v, ok := fm["user-invocable"]; ok {
		s.userValue = valueOf(v, written["user-invocable"])
		if b, ok := v.(bool); ok {
			s.userInvocable = b
		}
	}
	return s
}
