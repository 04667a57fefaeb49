package codex

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// InstallOptions says what Install writes.
type InstallOptions struct {
	// Command is the plandash executable the hook runs; "plandash" (found on PATH) when empty.
	Command string
	// Server and Data are passed on as --server and --data when set.
	Server, Data string
	// Timeout is the Stop and PreToolUse hooks' timeout in seconds; 86400 (a day) when zero.
	// Codex's default of 600 s is too short for a person who is away.
	Timeout int
	// Root confines the files written to a directory, for a project install: neither ".." nor
	// a symlink may lead out of it. Empty for the user's own settings.
	Root string
}

// Report says what Install or Uninstall changed.
type Report struct {
	Path    string
	Created bool // the file did not exist
	Changed bool // the file was written
}

// String says it in a sentence, for the command's output.
func (r Report) String() string {
	switch {
	case !r.Changed:
		return r.Path + ": already up to date, nothing changed"
	case r.Created:
		return r.Path + ": created with plandash's hooks. Review and trust them in Codex with /hooks."
	}
	return r.Path + ": updated. Review and trust the hooks in Codex with /hooks."
}

// hookCommand is the command line the hook runs.
func hookCommand(opts InstallOptions) string {
	args := []string{shellQuote(cmpOr(opts.Command, "plandash")), "hook", "codex"}
	if opts.Server != "" {
		args = append(args, "--server", shellQuote(opts.Server))
	}
	if opts.Data != "" {
		args = append(args, "--data", shellQuote(opts.Data))
	}
	return strings.Join(args, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isOurs reports whether a hook object runs `plandash hook codex`, under any path.
func isOurs(hook json.RawMessage) bool {
	var h struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(hook, &h) != nil {
		return false
	}
	return strings.Contains(h.Command, "plandash") && strings.Contains(h.Command, " hook codex")
}

// hookEvent is one event plandash's hook runs on, with the matcher of its group ("" for none).
type hookEvent struct{ name, matcher string }

// hookEvents are the events plandash hooks: Stop holds a turn's plan and marks the session as
// waiting for its next prompt; request_user_input's PreToolUse holds the question for an answer
// in plandash and its PostToolUse says it was answered in the terminal; UserPromptSubmit says
// the person typed. Only Stop and PreToolUse wait long, so only they get opts.Timeout.
var hookEvents = []hookEvent{
	{EventStop, ""},
	{EventPreToolUse, ToolRequestUserInput},
	{EventPostToolUse, ToolRequestUserInput},
	{EventUserPromptSubmit, ""},
}

// HookEventNames are the events `plandash install codex` hooks, for `plandash doctor` to tell
// an install from before some of them.
func HookEventNames() []string {
	out := make([]string, len(hookEvents))
	for i, e := range hookEvents {
		out[i] = e.name
	}
	return out
}

// MergeHooks returns hooksJSON (the bytes of a Codex hooks.json, {"hooks":{"Stop":[…]}}) with
// plandash's hooks for opts (or without them, when opts is nil), and whether it changed. Every
// other key and hook is kept in order; plandash's entries are recognised by their command, so a
// second run changes nothing, and unchanged input is returned as it was.
func MergeHooks(hooksJSON []byte, opts *InstallOptions) ([]byte, bool, error) {
	top := object{}
	if len(bytes.TrimSpace(hooksJSON)) > 0 {
		var v any
		if err := json.Unmarshal(hooksJSON, &v); err != nil {
			return nil, false, syntaxError(hooksJSON, err)
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, false, errors.New("it must hold a JSON object")
		}
		var err error
		if top, err = parseObject(hooksJSON); err != nil {
			return nil, false, err
		}
	}
	var hooks object
	if raw, ok := top.get("hooks"); ok && !isNull(raw) {
		var err error
		if hooks, err = parseObject(raw); err != nil {
			return nil, false, errors.New(`"hooks" is not an object`)
		}
	}
	changed := false
	for _, ev := range hookEvents {
		c, err := mergeEvent(&hooks, ev, opts)
		if err != nil {
			return nil, false, err
		}
		changed = changed || c
	}
	if !changed {
		return hooksJSON, false, nil
	}
	if len(hooks) == 0 {
		top.del("hooks")
	} else {
		top.set("hooks", hooks.marshal())
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, top.marshal(), "", "  "); err != nil {
		return nil, false, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), true, nil
}

// mergeEvent puts plandash's hook for ev last among the event's groups (or removes it when
// opts is nil), and reports whether that changed anything.
func mergeEvent(hooks *object, ev hookEvent, opts *InstallOptions) (bool, error) {
	var groups []json.RawMessage
	if raw, ok := hooks.get(ev.name); ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &groups); err != nil {
			return false, fmt.Errorf(`"hooks.%s" is not an array`, ev.name)
		}
	}
	var kept []json.RawMessage
	for _, g := range groups {
		kept = append(kept, stripOurs(g)...)
	}
	if opts != nil {
		type hook struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int    `json:"timeout,omitempty"`
		}
		h := hook{Type: "command", Command: hookCommand(*opts)}
		if ev.name == EventStop || ev.name == EventPreToolUse {
			h.Timeout = cmp.Or(max(opts.Timeout, 0), 86400)
		}
		b, _ := json.Marshal(struct {
			Matcher string `json:"matcher,omitempty"`
			Hooks   []hook `json:"hooks"`
		}{ev.matcher, []hook{h}})
		kept = append(kept, b)
	}
	if compactAll(kept) == compactAll(groups) {
		return false, nil
	}
	if len(kept) == 0 {
		hooks.del(ev.name)
	} else {
		hooks.set(ev.name, marshalArray(kept))
	}
	return true, nil
}

// stripOurs removes plandash's hooks from a matcher group; a group left empty goes too, and a
// group without them is kept byte for byte.
func stripOurs(g json.RawMessage) []json.RawMessage {
	o, err := parseObject(g)
	if err != nil {
		return []json.RawMessage{g}
	}
	raw, _ := o.get("hooks")
	var hs []json.RawMessage
	if json.Unmarshal(raw, &hs) != nil {
		return []json.RawMessage{g}
	}
	var keep []json.RawMessage
	for _, h := range hs {
		if !isOurs(h) {
			keep = append(keep, h)
		}
	}
	switch {
	case len(keep) == len(hs):
		return []json.RawMessage{g}
	case len(keep) == 0:
		return nil
	}
	o.set("hooks", marshalArray(keep))
	return []json.RawMessage{o.marshal()}
}

// Install merges plandash's hooks (see hookEvents) into the Codex hooks file at path (~/.codex/hooks.json;
// created when missing). A file that is not valid JSON is refused, with its line and column,
// and left untouched, as is one that is not a small, writable regular file (see settingsfile).
// The write is atomic. Codex runs a new or changed hook only once the user trusted it (/hooks in
// the TUI).
func Install(path string, opts InstallOptions) (Report, error) {
	return rewrite(opts.Root, path, &opts)
}

// Uninstall removes exactly plandash's hooks from the hooks file at path, confined to root when
// it is set (see InstallOptions.Root).
func Uninstall(path, root string) (Report, error) { return rewrite(root, path, nil) }

func rewrite(root, path string, opts *InstallOptions) (Report, error) {
	rep := Report{Path: path}
	f, err := settingsfile.Read(root, path)
	if err != nil {
		return rep, err
	}
	rep.Created = !f.Exists
	out, changed, err := MergeHooks(f.Data, opts)
	if err != nil {
		return rep, fmt.Errorf("%s: %w; the file was left untouched", path, err)
	}
	rep.Changed = changed
	rep.Created = rep.Created && changed
	if !changed {
		return rep, nil
	}
	return rep, settingsfile.Write(root, path, out)
}

// syntaxError says where the file is broken, as an editor counts: line and column.
func syntaxError(b []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	off := min(int(se.Offset), len(b))
	line, col := 1, 1
	for _, c := range b[:max(off-1, 0)] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("not valid JSON (line %d, column %d: %v)", line, col, se)
}

// member is one key of a JSON object, its value kept as written.
type member struct {
	Key   string
	Value json.RawMessage
}

// object is a JSON object that keeps its members' order, so rewriting a user's hooks.json
// changes only what plandash owns.
type object []member

func parseObject(b []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var o object
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
		o = append(o, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Key == key {
			return o[i].Value, true
		}
	}
	return nil, false
}

func (o *object) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, member{key, v})
}

func (o *object) del(key string) {
	out := (*o)[:0]
	for _, m := range *o {
		if m.Key != key {
			out = append(out, m)
		}
	}
	*o = out
}

func (o object) marshal() json.RawMessage {
	parts := make([]json.RawMessage, len(o))
	for i, m := range o {
		k, _ := json.Marshal(m.Key)
		parts[i] = append(append(k, ':'), m.Value...)
	}
	b := marshalArray(parts)
	b[0], b[len(b)-1] = '{', '}'
	return b
}

func marshalArray(a []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.Bytes()
}

func isNull(b json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(b), []byte("null")) }

func compactAll(a []json.RawMessage) string {
	var buf bytes.Buffer
	for _, v := range a {
		_ = json.Compact(&buf, v)
		buf.WriteByte(0)
	}
	return buf.String()
}
