package sharedplans

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// argSchema is a tool's input schema in the small subset of JSON Schema 2020-12 the tool
// schemas use: type, properties, required, additionalProperties (false or a schema) and items.
// Tool calls are checked against it before they are decoded, so what the schema advertises is
// what the tool enforces: an unknown argument is refused by name instead of silently ignored
// (encoding/json would also match keys case-insensitively, so {"NAME": ...} set name).
// TestArgSchemaAgreesWithValidator holds its verdicts to a full validator's.
type argSchema struct {
	Types       []string              // empty: any type
	Props       map[string]*argSchema // nil: no properties keyword
	Required    []string
	ClosedProps bool       // additionalProperties: false
	Extra       *argSchema // additionalProperties as a schema
	Items       *argSchema
}

// parseArgSchema parses raw, refusing any keyword it would otherwise ignore: a schema this
// checker cannot enforce completely must fail loudly when the tool table is built.
func parseArgSchema(raw json.RawMessage) (*argSchema, error) {
	var b bool
	if err := json.Unmarshal(raw, &b); err == nil {
		if b {
			return &argSchema{}, nil
		}
		return nil, fmt.Errorf("schema false is not supported")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	s := &argSchema{}
	for k, v := range m {
		var err error
		switch k {
		case "description", "title", "$schema":
		case "type":
			var one string
			if json.Unmarshal(v, &one) == nil {
				s.Types = []string{one}
			} else {
				err = json.Unmarshal(v, &s.Types)
			}
		case "required":
			err = json.Unmarshal(v, &s.Required)
		case "properties":
			var props map[string]json.RawMessage
			if err = json.Unmarshal(v, &props); err == nil {
				s.Props = map[string]*argSchema{}
				for name, p := range props {
					if s.Props[name], err = parseArgSchema(p); err != nil {
						break
					}
				}
			}
		case "additionalProperties":
			if bytes.Equal(bytes.TrimSpace(v), []byte("false")) {
				s.ClosedProps = true
			} else {
				s.Extra, err = parseArgSchema(v)
			}
		case "items":
			s.Items, err = parseArgSchema(v)
		default:
			err = fmt.Errorf("keyword %q is not supported", k)
		}
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", k, err)
		}
	}
	return s, nil
}

// check reports the first way v (as decoded by encoding/json into any) breaks the schema, in a
// sentence that names the argument. path is the argument's name ("" at the top).
func (s *argSchema) check(path string, v any) error {
	if len(s.Types) > 0 && !slices.ContainsFunc(s.Types, func(t string) bool { return hasType(v, t) }) {
		what := "the arguments"
		if path != "" {
			what = fmt.Sprintf("argument %q", path)
		}
		return invalidf("%s must be %s, not %s", what, typeList(s.Types), typeOf(v))
	}
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			sub, known := s.Props[k]
			switch {
			case known:
			case s.ClosedProps:
				return invalidf("unknown argument %q: %s", join(path, k), s.accepted())
			case s.Extra != nil:
				sub = s.Extra
			}
			if sub != nil {
				if err := sub.check(join(path, k), v[k]); err != nil {
					return err
				}
			}
		}
		for _, k := range s.Required {
			if _, ok := v[k]; !ok {
				return invalidf("missing required argument %q", join(path, k))
			}
		}
	case []any:
		if s.Items != nil {
			for i, e := range v {
				if err := s.Items.check(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (s *argSchema) accepted() string {
	if len(s.Props) == 0 {
		return "this tool takes no arguments"
	}
	names := make([]string, 0, len(s.Props))
	for k := range s.Props {
		names = append(names, k)
	}
	slices.Sort(names)
	return "the arguments are " + strings.Join(names, ", ")
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// hasType is JSON Schema's type test on a value decoded with UseNumber: an integer is any
// number with no fractional part, 1.0 included.
func hasType(v any, t string) bool {
	switch v := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case json.Number:
		if t == "number" {
			return true
		}
		if t != "integer" {
			return false
		}
		return isIntegral(v)
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

// isIntegral reports whether a JSON number has no fractional part. Beyond float64's range a
// number is integral (1e400 is an integer to JSON Schema); below it, it is not.
func isIntegral(n json.Number) bool {
	if _, err := n.Int64(); err == nil {
		return true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return math.IsInf(f, 0)
	}
	return f == math.Trunc(f)
}

func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		if hasType(v, "integer") {
			return "an integer"
		}
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func typeList(ts []string) string {
	words := make([]string, len(ts))
	for i, t := range ts {
		switch t {
		case "null":
			words[i] = "null"
		case "integer", "object", "array":
			words[i] = "an " + t
		default:
			words[i] = "a " + t
		}
	}
	// Put null last so ["null","integer"] reads "an integer or null".
	slices.SortStableFunc(words, func(a, b string) int {
		return strings.Compare(fmt.Sprint(a == "null"), fmt.Sprint(b == "null"))
	})
	return strings.Join(words, " or ")
}

// checkArgs decodes raw generically and checks it against s.
func (s *argSchema) checkArgs(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return invalidf("invalid arguments: %v", err)
	}
	return s.check("", v)
}
