package settingsfile

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// FlatHooks is what one agent's install puts in a settings file whose "hooks" object lists hook
// entries straight under each event, without matcher groups: GitHub Copilot CLI's
// {"hooks":{"preToolUse":[{"type":"command","bash":"plandash hook copilot",…}]}} and Crush's
// {"hooks":{"PreToolUse":[{"matcher":"…","command":"plandash hook crush"}]}}.
type FlatHooks struct {
	// Agent is the word after `plandash hook` in plandash's commands (see IsOurCommand).
	Agent string
	// CommandKey is the entry's member holding the command line: "bash" for Copilot CLI,
	// "command" for Crush.
	CommandKey string
	// Events are the events plandash may hook, in the order new ones are added to the file.
	Events []string
	// Entries are plandash's hook entries by event. An event without any (every event, to
	// uninstall) is left with none of plandash's entries.
	Entries map[string][]json.RawMessage
}

// MergeFlatHooks is MergeHooks for FlatHooks: the settings file at path (its bytes b, read by
// ParseFile's rules) with plandash's entries set to h, and what changed. Every other key, event
// and entry is kept in its place and as written, in the file's own layout; plandash's entries
// are recognised by their command and go after the user's, laid out like them; an event, or the
// "hooks" object, left empty by removing plandash's entries goes too. When nothing changes b is
// returned as it was.
func MergeFlatHooks(path string, b []byte, h FlatHooks) ([]byte, Changes, error) {
	var ch Changes
	top, err := ParseFile(path, b)
	if err != nil {
		return nil, ch, err
	}
	hooks := Object{}
	if raw, ok := top.Get("hooks"); ok && !IsNull(raw) {
		if hooks, err = ParseObject(raw); err != nil {
			return nil, ch, fmt.Errorf(`%s: "hooks" is not an object; it was left untouched`, path)
		}
	}
	var events []string
	seen := map[string]bool{}
	for _, m := range hooks {
		if !seen[m.Key] {
			events, seen[m.Key] = append(events, m.Key), true
		}
	}
	for _, ev := range h.Events {
		if !seen[ev] && len(h.Entries[ev]) > 0 {
			events, seen[ev] = append(events, ev), true
		}
	}
	for _, ev := range events {
		want := h.Entries[ev]
		var entries array
		if raw, ok := hooks.Get(ev); ok && !IsNull(raw) {
			if entries, err = parseArray(raw); err != nil {
				if len(want) == 0 {
					continue // not plandash's to judge
				}
				return nil, ch, fmt.Errorf("%s: hooks.%s is not an array; it was left untouched", path, ev)
			}
		}
		var ours []json.RawMessage
		kept := array{tail: entries.tail}
		for _, e := range entries.elems {
			if isOurEntry(e.v, h.CommandKey, h.Agent) {
				ours = append(ours, e.v)
			} else {
				kept.elems = append(kept.elems, e)
			}
		}
		if sameValues(ours, want) {
			continue
		}
		switch {
		case len(want) > 0 && len(ours) == 0:
			ch.Added = append(ch.Added, ev)
		case len(want) > 0:
			ch.Updated = append(ch.Updated, ev)
		default:
			ch.Removed = append(ch.Removed, ev)
		}
		for _, e := range want {
			kept.elems = append(kept.elems, elem{v: e, fresh: true})
		}
		switch {
		case len(kept.elems) == 0:
			hooks.Del(ev)
		case kept.read():
			hooks.setKeep(ev, kept.marshal())
		default: // a new event, or one with nothing left as read: laid out where it goes
			hooks.Set(ev, kept.marshal())
		}
	}
	if !ch.Changed() {
		return b, ch, nil
	}
	switch {
	case len(hooks) == 0:
		top.Del("hooks")
	case hooks.read():
		top.setKeep("hooks", hooks.Marshal())
	default:
		top.Set("hooks", hooks.Marshal())
	}
	if !top.read() {
		return Indent(top.Marshal()), ch, nil // a new file, or one that held {}
	}
	start := bytes.IndexByte(b, '{')
	end := bytes.LastIndexByte(b, '}')
	return append(append(append([]byte{}, b[:start]...), top.Marshal()...), b[end+1:]...), ch, nil
}

// isOurEntry reports whether a hook entry's command (under key) runs `plandash hook AGENT`.
func isOurEntry(e json.RawMessage, key, agent string) bool {
	o, err := ParseObject(e)
	if err != nil {
		return false
	}
	raw, ok := o.Get(key)
	if !ok {
		return false
	}
	var cmd string
	if json.Unmarshal(raw, &cmd) != nil {
		return false
	}
	return IsOurCommand(cmd, agent)
}
