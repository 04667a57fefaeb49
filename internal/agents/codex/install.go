package codex

import (
	"cmp"
	"encoding/json"

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
	return settingsfile.HookCommand(opts.Command, "codex",
		settingsfile.Flag{Name: "--server", Value: opts.Server}, settingsfile.Flag{Name: "--data", Value: opts.Data})
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
// second run changes nothing, and unchanged input is returned as it was (see
// settingsfile.MergeHooks).
func mergeHooks(hooksJSON []byte, opts *InstallOptions) ([]byte, bool, error) {
	return merge("hooks.json", hooksJSON, opts)
}

// merge is MergeHooks for the file at path (named so in errors).
func merge(path string, hooksJSON []byte, opts *InstallOptions) ([]byte, bool, error) {
	names := HookEventNames()
	groups := map[string][]json.RawMessage{}
	if opts != nil {
		for _, ev := range hookEvents {
			groups[ev.name] = []json.RawMessage{group(ev, *opts)}
		}
	}
	out, ch, err := settingsfile.MergeHooks(path, hooksJSON, settingsfile.Hooks{Agent: "codex", Events: names, Groups: groups})
	return out, ch.Changed(), err
}

// group is plandash's matcher group for ev.
func group(ev hookEvent, opts InstallOptions) json.RawMessage {
	type hook struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout,omitempty"`
	}
	h := hook{Type: "command", Command: hookCommand(opts)}
	if ev.name == EventStop || ev.name == EventPreToolUse {
		h.Timeout = cmp.Or(max(opts.Timeout, 0), 86400)
	}
	b, _ := json.Marshal(struct {
		Matcher string `json:"matcher,omitempty"`
		Hooks   []hook `json:"hooks"`
	}{ev.matcher, []hook{h}})
	return b
}

// Install merges plandash's hooks (see hookEvents) into the Codex hooks file at path
// (~/.codex/hooks.json; created when missing). A file that is not plain JSON is refused, with
// its line and column, and left untouched, as is one that is not a small, writable regular file (see settingsfile).
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
	out, changed, err := merge(path, f.Data, opts)
	if err != nil || !changed {
		return rep, err
	}
	rep.Changed, rep.Created = true, !f.Exists
	return rep, settingsfile.Write(root, path, out)
}
