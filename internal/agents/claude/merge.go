package claude

import (
	"encoding/json"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// MergeHooks returns settings (the bytes of a Claude Code settings.json) with plandash's hooks
// for opts, and what changed. Every other key and hook is kept in its place; plandash's own
// entries are recognised by their command, so a second run changes nothing. When nothing
// changes the input is returned as it was, formatting included (see settingsfile.MergeHooks).
func mergeHooks(settings []byte, opts InstallOptions) ([]byte, Report, error) {
	return merge("settings.json", settings, desired(opts))
}

// RemoveHooks returns settings without plandash's hooks, and what changed.
func removeHooks(settings []byte) ([]byte, Report, error) {
	return merge("settings.json", settings, nil)
}

// merge sets plandash's groups in the settings file at path (named so in errors) to want.
func merge(path string, settings []byte, want map[string][]json.RawMessage) ([]byte, Report, error) {
	out, ch, err := settingsfile.MergeHooks(path, settings, settingsfile.Hooks{Agent: "claude", Events: hookEvents(), Groups: want})
	if err != nil {
		return nil, Report{}, err
	}
	return out, Report{Changed: ch.Changed(), Added: ch.Added, Updated: ch.Updated, Removed: ch.Removed}, nil
}
