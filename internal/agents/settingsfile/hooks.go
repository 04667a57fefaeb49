package settingsfile

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Hooks is what one agent's install puts in a settings file's "hooks" object, in the shape
// Claude Code, Codex and Gemini CLI share: matcher groups by event, each holding hook objects,
// {"hooks":{"Stop":[{"matcher":"…","hooks":[{"type":"command","command":"plandash hook …"}]}]}}.
type Hooks struct {
	// Agent is the word after `plandash hook` in plandash's commands: it tells plandash's hooks
	// from the user's (see IsOurs).
	Agent string
	// Events are the events plandash may hook, in the order new ones are added to the file.
	Events []string
	// Groups are plandash's matcher groups by event (with Flat, its hook entries). An event
	// without any (every event, to uninstall) is left with none of plandash's hooks.
	Groups map[string][]json.RawMessage
	// Flat says each event lists hook entries themselves, without matcher groups: GitHub
	// Copilot CLI's {"hooks":{"preToolUse":[{"type":"command","bash":"…"}]}}, Crush's.
	Flat bool
	// CommandKey is the hook member holding the command line; "command" when empty ("bash"
	// for Copilot CLI).
	CommandKey string
}

// ours reports whether one element of an event's list is, or holds, plandash's hook.
func (h Hooks) ours(e json.RawMessage) bool {
	if h.Flat {
		return h.IsOurs(e)
	}
	for _, hk := range GroupHooks(e) {
		if h.IsOurs(hk) {
			return true
		}
	}
	return false
}

// IsOurs reports whether a hook object ({"type":"command","command":…}) runs `plandash hook
// AGENT` (see IsOurCommand). The command is the member CommandKey names ("command" by default),
// as the agent reads it.
func (h Hooks) IsOurs(hook json.RawMessage) bool {
	key := h.CommandKey
	if key == "" {
		key = "command"
	}
	o, err := ParseObject(hook)
	if err != nil {
		return false
	}
	raw, _ := o.Get(key)
	var cmd string
	return json.Unmarshal(raw, &cmd) == nil && IsOurCommand(cmd, h.Agent)
}

// Changes says which events a merge changed.
type Changes struct {
	Added   []string // events plandash's hooks were added to
	Updated []string // events whose plandash hooks were replaced
	Removed []string // events plandash's hooks were removed from
}

// Changed reports whether anything changed.
func (c Changes) Changed() bool { return len(c.Added)+len(c.Updated)+len(c.Removed) > 0 }

// MergeHooks returns the settings file at path (its bytes b, read by ParseFile's rules) with
// plandash's hooks set to h, and what changed. Every other key, event, group and hook is kept
// in its place, byte for byte with the space around it; plandash's own hooks are recognised by
// their command, so a second run changes nothing, and when nothing changes b is returned as
// it was. What plandash adds takes the layout of what is around it (a new file is written as
// Indent formats it), so removing it again gives the file back as it was. plandash's groups go
// after the user's on each event; a group of the user's that also holds a plandash hook loses
// only that hook; an event, or the "hooks" object, left empty by removing plandash's hooks
// goes too.
func MergeHooks(path string, b []byte, h Hooks) ([]byte, Changes, error) {
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
	// Every event already there (plandash's hooks are removed from events it no longer
	// hooks), then the new ones.
	var events []string
	seen := map[string]bool{}
	for _, m := range hooks {
		if !seen[m.Key] {
			events, seen[m.Key] = append(events, m.Key), true
		}
	}
	for _, ev := range h.Events {
		if !seen[ev] && len(h.Groups[ev]) > 0 {
			events, seen[ev] = append(events, ev), true
		}
	}
	for _, ev := range events {
		want := h.Groups[ev]
		var groups array
		if raw, ok := hooks.Get(ev); ok && !IsNull(raw) {
			if groups, err = parseArray(raw); err != nil {
				if len(want) == 0 {
					continue // not plandash's to judge
				}
				return nil, ch, fmt.Errorf("%s: hooks.%s is not an array; it was left untouched", path, ev)
			}
		}
		var ours []json.RawMessage
		for _, g := range groups.elems {
			if h.ours(g.v) {
				ours = append(ours, g.v)
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
		kept := h.strip(groups)
		for _, g := range want {
			kept.elems = append(kept.elems, elem{v: g, fresh: true})
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
	if !top.read() { // a new file, or one that held {}
		out := Indent(top.Marshal())
		if bytes.Contains(b, []byte("\r\n")) {
			out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
		}
		return out, ch, nil
	}
	start := bytes.IndexByte(b, '{')
	end := bytes.LastIndexByte(b, '}')
	return append(append(append([]byte{}, b[:start]...), top.Marshal()...), b[end+1:]...), ch, nil
}

// read reports whether any of a's elements was read by parseArray, so marshal keeps a layout.
func (a array) read() bool {
	for _, e := range a.elems {
		if e.src {
			return true
		}
	}
	return false
}

// read reports whether any of o's members was read by ParseObject, so Marshal keeps a layout.
func (o Object) read() bool {
	for _, m := range o {
		if m.src {
			return true
		}
	}
	return false
}

// sameValues reports whether a and b hold the same JSON values, in order, space aside.
func sameValues(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if Compact(a[i]) != Compact(b[i]) {
			return false
		}
	}
	return true
}

// groupHooks reads a matcher group and its hooks array; ok is false for anything else.
func groupHooks(g json.RawMessage) (o Object, hooks array, ok bool) {
	o, err := ParseObject(g)
	if err != nil {
		return nil, array{}, false
	}
	raw, ok := o.Get("hooks")
	if !ok {
		return nil, array{}, false
	}
	hooks, err = parseArray(raw)
	return o, hooks, err == nil
}

// GroupHooks returns the hook objects of a matcher group; none for anything that is not a group.
func GroupHooks(g json.RawMessage) []json.RawMessage {
	_, hs, _ := groupHooks(g)
	out := make([]json.RawMessage, len(hs.elems))
	for i, e := range hs.elems {
		out[i] = e.v
	}
	return out
}

// strip removes plandash's hooks: its entries, or its hooks from every group, where a group
// left with no hooks goes too. What holds none of plandash's hooks is kept byte for byte.
func (h Hooks) strip(list array) array {
	out := array{tail: list.tail}
	for _, e := range list.elems {
		if h.Flat {
			if !h.IsOurs(e.v) {
				out.elems = append(out.elems, e)
			}
			continue
		}
		o, hs, ok := groupHooks(e.v)
		if !ok {
			out.elems = append(out.elems, e)
			continue
		}
		keep := array{tail: hs.tail}
		for _, hk := range hs.elems {
			if !h.IsOurs(hk.v) {
				keep.elems = append(keep.elems, hk)
			}
		}
		switch {
		case len(keep.elems) == len(hs.elems):
			out.elems = append(out.elems, e)
		case len(keep.elems) > 0:
			o.setKeep("hooks", keep.marshal())
			e.v = o.Marshal()
			out.elems = append(out.elems, e)
		}
	}
	return out
}

// Report says what an install or uninstall changed in one settings file.
type Report struct {
	Path    string
	Created bool // the file did not exist
	Changed bool // the file was written
}

// String says it in a sentence, for the command's output.
func (r Report) String() string {
	switch {
	case r.Created:
		return r.Path + " created"
	case r.Changed:
		return r.Path + " updated"
	}
	return r.Path + " already up to date"
}

// RewriteHooks reads the settings file at path (inside root when root is set; see Read), merges
// h into it (MergeHooks) and writes it back atomically when that changed anything.
func RewriteHooks(root, path string, h Hooks) (Report, error) {
	rep := Report{Path: path}
	f, err := Read(root, path)
	if err != nil {
		return rep, err
	}
	out, ch, err := MergeHooks(path, f.Data, h)
	if err != nil || !ch.Changed() {
		return rep, err
	}
	rep.Changed, rep.Created = true, !f.Exists
	return rep, Write(root, path, out)
}
