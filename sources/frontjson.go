package sources

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FrontMatterJSON renders a front matter block (Skill.FrontMatter) as a
// JSON object holding every field the author wrote, the form in which the
// MCP Skills extension publishes it, and returns the fields as well. A
// client checks that object field by field against the file it reads, so
// the values are those of a YAML 1.2 reader, which is what clients use:
// a date stays the string it is ("2024-01-01"), "014" is the number 14,
// "yes" and "1_000" are strings. The YAML library's own reading (Fields)
// follows older rules in these corners, which is fine for serving and
// wrong here.
//
// It fails where no faithful JSON exists or the block is not strict
// YAML: a value such as .inf or .nan, a non-scalar map key, or a block
// that only parses after the fix-up ParseFrontMatter applies to
// unquoted ": " in plain values.
func FrontMatterJSON(front []byte) (raw []byte, fields map[string]any, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return nil, nil, err
	}
	if !withinValues(&doc, MaxValues) {
		return nil, nil, ErrTooComplex
	}
	fields = map[string]any{}
	if len(doc.Content) > 0 {
		v, err := jsonValue(doc.Content[0], 0)
		if err != nil {
			return nil, nil, err
		}
		switch m := v.(type) {
		case nil:
		case map[string]any:
			fields = m
		default:
			return nil, nil, fmt.Errorf("front matter is a YAML %s, not a map of keys to values", doc.Content[0].ShortTag())
		}
	}
	raw, err = json.Marshal(fields)
	if err != nil {
		return nil, nil, err
	}
	return raw, fields, nil
}

// maxDepth bounds the nesting jsonValue follows; withinValues has bounded
// the total already.
const maxDepth = 64

var errNotJSON = errors.New("front matter holds a value JSON cannot carry")

// jsonValue converts one YAML node to a value encoding/json renders as a
// YAML 1.2 reader would give it.
func jsonValue(n *yaml.Node, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("front matter nests deeper than %d levels", maxDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errNotJSON
		}
		return jsonValue(n.Alias, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := jsonValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			for k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%w: a map key that is a %s", errNotJSON, k.ShortTag())
			}
			if _, dup := out[k.Value]; dup {
				return nil, fmt.Errorf("front matter sets %q twice", k.Value)
			}
			v, err := jsonValue(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil, errNotJSON
}

// YAML 1.2 core schema: what a plain scalar means.
var (
	coreNull  = regexp.MustCompile(`^(?:~|null|Null|NULL)?$`)
	coreBool  = regexp.MustCompile(`^(?:true|True|TRUE|false|False|FALSE)$`)
	coreInt   = regexp.MustCompile(`^[-+]?[0-9]+$`)
	coreOct   = regexp.MustCompile(`^0o[0-7]+$`)
	coreHex   = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	coreFloat = regexp.MustCompile(`^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$`)
	coreInf   = regexp.MustCompile(`^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
)

func scalarValue(n *yaml.Node) (any, error) {
	// A quoted or block scalar is a string; so is one the author tagged
	// !!str. The library resolves the tags of plain scalars by older
	// rules, so only an explicit tag (TaggedStyle) is taken from it.
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Value, nil
	}
	if n.Style&yaml.TaggedStyle != 0 && (n.Tag == "!!str" || n.Tag == "!!binary" || n.Tag == "!!timestamp") {
		return n.Value, nil
	}
	v := n.Value
	switch {
	case coreNull.MatchString(v):
		return nil, nil
	case coreBool.MatchString(v):
		return v[0] == 't' || v[0] == 'T', nil
	case coreInt.MatchString(v):
		return bigNumber(strings.TrimPrefix(v, "+"), 10)
	case coreOct.MatchString(v):
		return bigNumber(v[2:], 8)
	case coreHex.MatchString(v):
		return bigNumber(v[2:], 16)
	case coreFloat.MatchString(v):
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q", errNotJSON, v)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case coreInf.MatchString(v):
		return nil, fmt.Errorf("%w: %s", errNotJSON, v)
	}
	return v, nil
}

// bigNumber renders an integer of any size in decimal, so that a reader
// rounds it as it rounds the file's own digits.
func bigNumber(digits string, base int) (any, error) {
	var z big.Int
	if _, ok := z.SetString(digits, base); !ok {
		return nil, fmt.Errorf("%w: %q", errNotJSON, digits)
	}
	return json.Number(z.String()), nil
}
