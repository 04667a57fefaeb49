package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// member is one key of a JSON object, its value kept raw so nothing else in the file changes.
type member struct {
	Key   string
	Value json.RawMessage
}

// parseObject reads a JSON object keeping its keys in order.
func parseObject(b []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	return out, nil
}

func marshalObject(ms []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// MergeHooks returns settings (the bytes of a Gemini CLI settings.json) with plandash's hook
// groups set to want (by event: one group, or an array of groups; nil: removed), and whether anything changed. plandash's groups are
// recognised by their command (`… plandash … hook gemini`); every other key and hook stays in
// place. When nothing changes the input is returned as it was.
func MergeHooks(settings []byte, want map[string]json.RawMessage) ([]byte, bool, error) {
	var top []member
	if len(bytes.TrimSpace(settings)) > 0 {
		var v any
		if err := json.Unmarshal(settings, &v); err != nil {
			return nil, false, fmt.Errorf("not plain JSON (%v)", err)
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, false, errors.New("settings must be a JSON object")
		}
		top, _ = parseObject(settings)
	}
	hi := -1
	var hooks []member
	for i, m := range top {
		if m.Key == "hooks" && !bytes.Equal(bytes.TrimSpace(m.Value), []byte("null")) {
			var err error
			if hooks, err = parseObject(m.Value); err != nil {
				return nil, false, errors.New(`"hooks" is not an object`)
			}
			hi = i
		}
	}
	seen := map[string]bool{}
	for _, m := range hooks {
		seen[m.Key] = true
	}
	for _, ev := range hookEvents() {
		if !seen[ev] && want[ev] != nil {
			hooks = append(hooks, member{ev, json.RawMessage("[]")})
		}
	}
	changed := false
	var kept []member
	for _, m := range hooks {
		var groups []json.RawMessage
		if json.Unmarshal(m.Value, &groups) != nil {
			if want[m.Key] != nil {
				return nil, false, fmt.Errorf("hooks.%s is not an array", m.Key)
			}
			kept = append(kept, m)
			continue
		}
		var next []json.RawMessage
		var ours []json.RawMessage
		for _, g := range groups {
			if isOurGroup(g) {
				ours = append(ours, g)
				continue
			}
			next = append(next, g)
		}
		if w := want[m.Key]; w != nil {
			ws := groupsOf(w)
			next = append(next, ws...)
			if len(ours) != len(ws) {
				changed = true
			}
			for i := 0; i < len(ours) && i < len(ws); i++ {
				changed = changed || !jsonEqual(ours[i], ws[i])
			}
		} else if len(ours) > 0 {
			changed = true
		}
		if len(next) == 0 && len(ours) > 0 {
			continue // the event held only plandash's hooks
		}
		b, _ := json.Marshal(next)
		if next == nil {
			b = []byte("[]")
		}
		kept = append(kept, member{m.Key, b})
	}
	if !changed {
		return settings, false, nil
	}
	hv := marshalObject(kept)
	if hi >= 0 {
		top[hi].Value = hv
	} else {
		top = append(top, member{"hooks", hv})
	}
	var out bytes.Buffer
	if err := json.Indent(&out, marshalObject(top), "", "  "); err != nil {
		return nil, false, err
	}
	out.WriteByte('\n')
	return out.Bytes(), true, nil
}

// groupsOf is a wanted value as matcher groups: one group (an object), or several (an array).
func groupsOf(w json.RawMessage) []json.RawMessage {
	var gs []json.RawMessage
	if t := bytes.TrimSpace(w); len(t) > 0 && t[0] == '[' && json.Unmarshal(t, &gs) == nil {
		return gs
	}
	return []json.RawMessage{w}
}

// isOurGroup reports whether a matcher group holds a hook that runs `plandash hook gemini`.
func isOurGroup(g json.RawMessage) bool {
	var v struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if json.Unmarshal(g, &v) != nil {
		return false
	}
	for _, h := range v.Hooks {
		f := strings.Fields(h.Command)
		for i := 0; i+2 < len(f); i++ {
			if f[i+1] == "hook" && f[i+2] == "gemini" && strings.Contains(filepath.Base(strings.Trim(f[i], `'"`)), "plandash") {
				return true
			}
		}
	}
	return false
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}
