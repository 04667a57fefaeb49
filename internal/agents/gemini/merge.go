package gemini

import (
	"bytes"
	"encoding/json"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// MergeHooks returns settings (the bytes of a Gemini CLI settings.json) with plandash's hook
// groups set to want (by event: one group, or an array of groups; nil: removed), and whether
// anything changed. plandash's hooks are recognised by their command (`… plandash hook
// gemini`); every other key and hook stays in place. When nothing changes the input is
// returned as it was (see settingsfile.MergeHooks).
func mergeHooks(settings []byte, want map[string]json.RawMessage) ([]byte, bool, error) {
	return merge("settings.json", settings, want)
}

// merge is MergeHooks for the file at path (named so in errors).
func merge(path string, settings []byte, want map[string]json.RawMessage) ([]byte, bool, error) {
	groups := make(map[string][]json.RawMessage, len(want))
	for ev, w := range want {
		groups[ev] = groupsOf(w)
	}
	out, ch, err := settingsfile.MergeHooks(path, settings, settingsfile.Hooks{Agent: "gemini", Events: hookEvents(), Groups: groups})
	return out, ch.Changed(), err
}

// groupsOf is a wanted value as matcher groups: one group (an object), or several (an array).
func groupsOf(w json.RawMessage) []json.RawMessage {
	if t := bytes.TrimSpace(w); len(t) > 0 && t[0] == '[' {
		if gs, err := settingsfile.ParseArray(t); err == nil {
			return gs
		}
	}
	if w == nil {
		return nil
	}
	return []json.RawMessage{w}
}
