package dag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// MaxDepth bounds how deeply an argument value may nest. The JSON decoder
// alone would accept 10,000 levels; no real tool call needs more than a
// few, and a bound keeps hostile plans cheap.
const MaxDepth = 64

// Parse reads a plan given either as a JSON array of calls or as an object
// {"calls": […], "_state": {…}, "_instances": […]} (also the ACP custom plan
// {"type": "_dag", "planId": …, "calls": […]}). Structural faults (not JSON,
// a call that is not an object, duplicate ids, bad meta-property types,
// nesting beyond MaxDepth) are errors wrapping ErrInvalid; faults in the
// plan's logic are returned as Problems on a usable Plan.
func Parse(raw json.RawMessage) (*Plan, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: empty input", ErrInvalid)
	}
	p := &Plan{}
	callsRaw := raw
	switch raw[0] {
	case '[':
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("%w: not valid JSON: %v", ErrInvalid, err)
		}
		if t, ok := obj["type"]; ok && bytes.Equal(bytes.TrimSpace(t), []byte(`"_graph"`)) {
			return nil, fmt.Errorf("%w: this is a generic graph (type \"_graph\"), not a tool-call plan", ErrInvalid)
		}
		c, ok := obj["calls"]
		if !ok {
			return nil, fmt.Errorf("%w: the plan object has no \"calls\" array", ErrInvalid)
		}
		callsRaw = bytes.TrimSpace(c)
		if k := jsonKind(callsRaw); k != "an array" {
			return nil, fmt.Errorf("%w: \"calls\" is %s, not an array", ErrInvalid, k)
		}
		if err := p.readStates(obj["_state"], obj["_instances"]); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: a plan must be an array of calls or an object with \"calls\"; got %s", ErrInvalid, jsonKind(raw))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(callsRaw, &items); err != nil {
		return nil, fmt.Errorf("%w: not valid JSON: %v", ErrInvalid, err)
	}
	if p.states == nil {
		if err := p.readStates(nil, nil); err != nil {
			return nil, err
		}
	}
	p.Calls = make([]Call, len(items))
	seen := make(map[string]int, len(items))
	for i, item := range items {
		c := &p.Calls[i]
		explicit, err := p.parseCall(i, item, c)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[c.ID]; dup {
			why := ""
			if !explicit {
				why = fmt.Sprintf(" (call %d has no _id, so its position is its id)", i)
			}
			return nil, fmt.Errorf("%w: duplicate _id %q: calls %d and %d%s", ErrInvalid, c.ID, j, i, why)
		}
		seen[c.ID] = i
	}
	if err := p.build(seen); err != nil {
		return nil, err
	}
	return p, nil
}

// readStates decodes "_state" and "_instances" once; resolution of reads
// walks the decoded values.
func (p *Plan) readStates(state, instances json.RawMessage) error {
	var base map[string]any
	if state = bytes.TrimSpace(state); len(state) > 0 && !bytes.Equal(state, []byte("null")) {
		if k := jsonKind(state); k != "an object" {
			return fmt.Errorf("%w: \"_state\" is %s, not an object", ErrInvalid, k)
		}
		if err := json.Unmarshal(state, &base); err != nil {
			return fmt.Errorf("%w: \"_state\": %v", ErrInvalid, err)
		}
		p.State = state
	}
	instances = bytes.TrimSpace(instances)
	if len(instances) == 0 || bytes.Equal(instances, []byte("null")) {
		p.states = []any{orEmpty(base)}
		return nil
	}
	if k := jsonKind(instances); k != "an array" {
		return fmt.Errorf("%w: \"_instances\" is %s, not an array", ErrInvalid, k)
	}
	if err := json.Unmarshal(instances, &p.Instances); err != nil {
		return fmt.Errorf("%w: \"_instances\": %v", ErrInvalid, err)
	}
	p.states = make([]any, len(p.Instances))
	for i, inst := range p.Instances {
		if k := jsonKind(inst); k != "an object" {
			return fmt.Errorf("%w: instance %d is %s, not an object", ErrInvalid, i, k)
		}
		var own map[string]any
		if err := json.Unmarshal(inst, &own); err != nil {
			return fmt.Errorf("%w: instance %d: %v", ErrInvalid, i, err)
		}
		// "_state" is the common base; an instance's own keys win.
		merged := make(map[string]any, len(base)+len(own))
		for k, v := range base {
			merged[k] = v
		}
		for k, v := range own {
			merged[k] = v
		}
		p.states[i] = merged
	}
	return nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// parseCall fills c from the JSON object item and reports whether the id
// was explicit. Logic faults become problems on p; only structural faults
// are errors.
func (p *Plan) parseCall(i int, item json.RawMessage, c *Call) (explicitID bool, err error) {
	c.Index = i
	c.ID = strconv.Itoa(i)
	c.Status = StatusPending
	if k := jsonKind(item); k != "an object" {
		return false, fmt.Errorf("%w: call %d is %s, not an object", ErrInvalid, i, k)
	}
	dec := json.NewDecoder(bytes.NewReader(item))
	if _, err := dec.Token(); err != nil { // the opening brace
		return false, fmt.Errorf("%w: call %d: %v", ErrInvalid, i, err)
	}
	argIndex := map[string]int{}
	var output, toolRaw json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false, fmt.Errorf("%w: call %d: %v", ErrInvalid, i, err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false, fmt.Errorf("%w: call %d: %v", ErrInvalid, i, err)
		}
		switch key {
		case "_tool":
			toolRaw = v
		case "_outputPath":
			output = v
		case "_id":
			id, err := idString(v)
			if err != nil {
				return false, fmt.Errorf("%w: call %d: _id %v", ErrInvalid, i, err)
			}
			c.ID, explicitID = id, true
		case "_title":
			if err := optString(v, &c.Title); err != nil {
				return false, fmt.Errorf("%w: call %d: _title is %s, not a string", ErrInvalid, i, jsonKind(v))
			}
		case "_toolCallId":
			if err := optString(v, &c.ToolCallID); err != nil {
				return false, fmt.Errorf("%w: call %d: _toolCallId is %s, not a string", ErrInvalid, i, jsonKind(v))
			}
		case "_status":
			var s string
			if err := optString(v, &s); err != nil {
				return false, fmt.Errorf("%w: call %d: _status is %s, not a string", ErrInvalid, i, jsonKind(v))
			}
			if s != "" {
				if !Status(s).Valid() {
					return false, fmt.Errorf("%w: call %d: _status %q is not one of pending, in_progress, completed, failed, skipped", ErrInvalid, i, s)
				}
				c.Status = Status(s)
			}
		default:
			if len(key) > 0 && key[0] == '_' {
				continue // other meta-properties belong to someone else
			}
			// Duplicate keys: the last value wins, as in encoding/json,
			// but the argument keeps its first position.
			if j, ok := argIndex[key]; ok {
				c.Args[j].Value = v
				continue
			}
			argIndex[key] = len(c.Args)
			c.Args = append(c.Args, Arg{Name: key, Value: v})
		}
	}
	p.readTool(c, toolRaw)
	p.readOutput(c, output)
	for _, a := range c.Args {
		if err := p.scanRefs(c, a); err != nil {
			return false, err
		}
	}
	return explicitID, nil
}

// readTool sets c.Tool or reports why it cannot; it runs after the whole
// object is read because "_id" may come after "_tool".
func (p *Plan) readTool(c *Call, v json.RawMessage) {
	why := ""
	switch {
	case v == nil:
		why = "has no _tool"
	case jsonKind(v) != "a string":
		why = "has a _tool that is " + jsonKind(v) + ", not a string"
	default:
		_ = json.Unmarshal(v, &c.Tool)
		if c.Tool == "" {
			why = "has an empty _tool"
		}
	}
	if why != "" {
		p.problem(Problem{Kind: ProblemMissingTool, Calls: []string{c.ID},
			Message: callName(c) + " " + why})
	}
}

// readOutput sets c.Output or reports why it cannot.
func (p *Plan) readOutput(c *Call, v json.RawMessage) {
	if v == nil || bytes.Equal(v, []byte("null")) {
		return
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		p.problem(Problem{Kind: ProblemMalformedPath, Calls: []string{c.ID},
			Message: fmt.Sprintf("%s: _outputPath is %s, not a string", callName(c), jsonKind(v))})
		return
	}
	path, err := ParsePath(s)
	if err != nil {
		p.problem(Problem{Kind: ProblemMalformedPath, Calls: []string{c.ID}, Paths: []string{s},
			Message: fmt.Sprintf("%s: _outputPath %q is malformed: %v", callName(c), s, err)})
		return
	}
	c.Output = path
}

// callName names a call in messages by position, adding its id when the
// agent chose one, so people can find it either way.
func callName(c *Call) string {
	pos := strconv.Itoa(c.Index)
	if c.ID == pos {
		return "call " + pos
	}
	return "call " + pos + " (" + strconv.Quote(c.ID) + ")"
}

func idString(v json.RawMessage) (string, error) {
	switch jsonKind(v) {
	case "a string":
		var s string
		_ = json.Unmarshal(v, &s)
		if s == "" {
			return "", fmt.Errorf("is empty")
		}
		return s, nil
	case "a number":
		// Numbers are accepted because agents often number their calls.
		return string(bytes.TrimSpace(v)), nil
	}
	return "", fmt.Errorf("is %s, not a string", jsonKind(v))
}

func optString(v json.RawMessage, dst *string) error {
	if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil
	}
	return json.Unmarshal(v, dst)
}

// jsonKind names the JSON type of v for error messages, with an article.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "empty"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
