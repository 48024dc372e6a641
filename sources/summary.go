package sources

import (
	"fmt"
	"strconv"
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
	listValue
	mapValue
	otherValue // a type the YAML library decodes rarely (a time.Time)
	plainValue // inside the scanner only: a plain scalar not resolved yet
)

// fieldValue is a front matter value as the lenient checks read it: its
// kind and, for scalars, its text.
type fieldValue struct {
	kind valueKind
	// text is the string itself, or a boolean or a number as fmt.Sprint
	// prints the value the YAML library decodes; for otherValue, the
	// type's name as yamlType gives it.
	text string
}

// valueOf classifies v, a value decoded by the YAML library.
func valueOf(v any) fieldValue {
	switch v := v.(type) {
	case nil:
		return fieldValue{kind: nullValue}
	case string:
		return fieldValue{kind: stringValue, text: v}
	case bool:
		return fieldValue{kind: boolValue, text: strconv.FormatBool(v)}
	case int, int64, uint64:
		return fieldValue{kind: intValue, text: fmt.Sprint(v)}
	case float64:
		return fieldValue{kind: floatValue, text: fmt.Sprint(v)}
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
	case listValue:
		return "a list"
	case mapValue:
		return "a map"
	}
	return v.text
}

// summarize makes the summary of a front matter parsed by the YAML library.
func summarize(fm map[string]any) frontSummary {
	s := frontSummary{keys: sortedKeys(fm), userInvocable: true}
	if v, ok := fm["name"]; ok {
		s.name = valueOf(v)
	}
	if v, ok := fm["description"]; ok {
		s.description = valueOf(v)
	}
	if v, ok := fm["disable-model-invocation"]; ok {
		s.disableValue = valueOf(v)
		s.disableModelInvocation, _ = v.(bool)
	}
	if v, ok := fm["user-invocable"]; ok {
		s.userValue = valueOf(v)
		if b, ok := v.(bool); ok {
			s.userInvocable = b
		}
	}
	return s
}
