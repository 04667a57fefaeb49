package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// MergeHooks returns settings (the bytes of a Claude Code settings.json) with plandash's hooks
// for opts, and what changed. Every other key and hook is kept in its place; plandash's own
// entries are recognised by their command, so a second run changes nothing. When nothing
// changes the input is returned as it was, formatting included.
func MergeHooks(settings []byte, opts InstallOptions) ([]byte, Report, error) {
	return mergeWith(settings, desired(opts))
}

// RemoveHooks returns settings without plandash's hooks, and what changed.
func RemoveHooks(settings []byte) ([]byte, Report, error) {
	return mergeWith(settings, nil)
}

func loadSettings(b []byte) (object, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return object{}, nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, syntaxError("settings.json", b, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("settings.json must hold a JSON object; it was left untouched")
	}
	return parseObject(b)
}

func isNull(b json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(b), []byte("null")) }

func mergeWith(settings []byte, want map[string]json.RawMessage) ([]byte, Report, error) {
	var rep Report
	top, err := loadSettings(settings)
	if err != nil {
		return nil, rep, err
	}
	var hooks object
	if raw, ok := top.get("hooks"); ok && !isNull(raw) {
		if hooks, err = parseObject(raw); err != nil {
			return nil, rep, errors.New(`settings.json: "hooks" is not an object; the file was left untouched`)
		}
	}
	var events []string
	seen := map[string]bool{}
	for _, m := range hooks {
		if !seen[m.Key] {
			events, seen[m.Key] = append(events, m.Key), true
		}
	}
	for _, ev := range hookEvents() {
		if !seen[ev] && want[ev] != nil {
			events = append(events, ev)
		}
	}
	for _, ev := range events {
		raw, present := hooks.get(ev)
		var groups []json.RawMessage
		if present && !isNull(raw) {
			var ok bool
			if groups, ok = parseArray(raw); !ok {
				if want[ev] == nil {
					continue // not ours to judge
				}
				return nil, rep, fmt.Errorf("settings.json: hooks.%s is not an array; the file was left untouched", ev)
			}
		}
		g := wantGroups(want[ev])
		var ours []string
		for _, grp := range groups {
			if groupHasOurs(grp) {
				ours = append(ours, compact(grp))
			}
		}
		if len(ours) == len(g) && sameGroups(ours, g) {
			continue
		}
		kept := stripOurs(groups)
		switch {
		case g != nil && len(ours) == 0:
			rep.Added = append(rep.Added, ev)
		case g != nil:
			rep.Updated = append(rep.Updated, ev)
		default:
			rep.Removed = append(rep.Removed, ev)
		}
		kept = append(kept, g...)
		if len(kept) == 0 {
			hooks.del(ev)
		} else {
			hooks.set(ev, marshalArray(kept))
		}
	}
	rep.Changed = len(rep.Added)+len(rep.Updated)+len(rep.Removed) > 0
	if !rep.Changed {
		return settings, rep, nil
	}
	if len(hooks) == 0 {
		top.del("hooks")
	} else {
		top.set("hooks", hooks.marshal())
	}
	return indent(top.marshal()), rep, nil
}

// wantGroups is what desired wants for one event: one matcher group, or (a JSON array) several.
func wantGroups(g json.RawMessage) []json.RawMessage {
	if g == nil {
		return nil
	}
	if arr, ok := parseArray(g); ok && len(bytes.TrimSpace(g)) > 0 && bytes.TrimSpace(g)[0] == '[' {
		return arr
	}
	return []json.RawMessage{g}
}

// sameGroups reports whether plandash's groups found (compacted) are the ones wanted, in order.
func sameGroups(found []string, want []json.RawMessage) bool {
	for i := range found {
		if found[i] != compact(want[i]) {
			return false
		}
	}
	return true
}

// groupHooks reads a matcher group's hooks array; ok is false for anything else.
func groupHooks(grp json.RawMessage) (object, []json.RawMessage, bool) {
	if t := bytes.TrimSpace(grp); len(t) == 0 || t[0] != '{' {
		return nil, nil, false
	}
	o, err := parseObject(grp)
	if err != nil {
		return nil, nil, false
	}
	raw, ok := o.get("hooks")
	if !ok {
		return nil, nil, false
	}
	hs, ok := parseArray(raw)
	return o, hs, ok
}

func groupHasOurs(grp json.RawMessage) bool {
	_, hs, ok := groupHooks(grp)
	if !ok {
		return false
	}
	for _, h := range hs {
		if isOurs(h) {
			return true
		}
	}
	return false
}

// stripOurs removes plandash's hooks from every group; a group left with no hooks goes too.
// Groups without plandash's hooks are kept byte for byte.
func stripOurs(groups []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(groups))
	for _, grp := range groups {
		o, hs, ok := groupHooks(grp)
		if !ok {
			out = append(out, grp)
			continue
		}
		keep := make([]json.RawMessage, 0, len(hs))
		for _, h := range hs {
			if !isOurs(h) {
				keep = append(keep, h)
			}
		}
		switch {
		case len(keep) == len(hs):
			out = append(out, grp)
		case len(keep) > 0:
			o.set("hooks", marshalArray(keep))
			out = append(out, o.marshal())
		}
	}
	return out
}
