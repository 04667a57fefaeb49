package crush

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// InstallOptions says what Install writes.
type InstallOptions struct {
	// Command is the plandash executable the hook runs; "plandash" (found on PATH) when empty.
	Command string
	// Server and Data are passed on as --server and --data when set.
	Server, Data string
	// Timeout is the hook's timeout in seconds; 86 400 (a day) when zero. Crush's default of
	// 30 s is too short for a question a person answers later; a hook that times out is "no
	// opinion" to Crush, so its dialog then asks.
	Timeout int
	// Gate adds a second PreToolUse entry, for the calls Crush asks permission for
	// (PermissionTools): each waits at plandash's gate first; an approval skips Crush's own
	// prompt, a rejection blocks the call. Leave it off for Crush's --yolo mode, which asks
	// nothing.
	Gate bool
	// Root confines the file written to a directory, for a project install (its crush.json or
	// .crush.json): neither ".." nor a symlink may lead out of it. Empty for the user's own.
	Root string
}

// Report says what Install or Uninstall changed.
type Report = settingsfile.Report

// ConfigPath is Crush's global configuration file, where the user's hooks go:
// $CRUSH_GLOBAL_CONFIG/crush.json, else $XDG_CONFIG_HOME/crush/crush.json, else
// ~/.config/crush/crush.json (Crush's internal/config GlobalConfig). A project's crush.json or
// .crush.json in its root also takes hooks, which run before the global ones.
func ConfigPath(home, xdgConfigHome, crushGlobalConfig string) string {
	switch {
	case crushGlobalConfig != "":
		return filepath.Join(crushGlobalConfig, "crush.json")
	case xdgConfigHome != "":
		return filepath.Join(xdgConfigHome, "crush", "crush.json")
	}
	return filepath.Join(home, ".config", "crush", "crush.json")
}

// Matcher is the tools plandash's hook runs for: todos (the list) and question (answered in
// plandash). Other tools run without it, so Crush starts no process for them.
const Matcher = "^(todos|question)$"

// HookEventNames are the events `plandash install crush` hooks, for `plandash doctor`.
func HookEventNames() []string { return []string{EventPreToolUse} }

func entries(opts InstallOptions) map[string][]json.RawMessage {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 86_400
	}
	cmd := settingsfile.HookCommand(opts.Command, "crush",
		settingsfile.Flag{Name: "--server", Value: opts.Server}, settingsfile.Flag{Name: "--data", Value: opts.Data})
	b, _ := json.Marshal(struct {
		Name    string `json:"name"`
		Matcher string `json:"matcher"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}{"plandash", Matcher, cmd, timeout})
	out := []json.RawMessage{b}
	if opts.Gate {
		g, _ := json.Marshal(struct {
			Name    string `json:"name"`
			Matcher string `json:"matcher"`
			Command string `json:"command"`
			Timeout int    `json:"timeout"`
		}{"plandash gate", PermissionMatcher, cmd, timeout})
		out = append(out, g)
	}
	return map[string][]json.RawMessage{EventPreToolUse: out}
}

// Install merges plandash's PreToolUse hook into the Crush configuration file at path (created
// when missing). Everything else is kept, in order; running it again changes nothing. A file
// that is not plain JSON (with comments, say) is refused and left untouched, as is one that is
// not a small, writable regular file (see settingsfile). The write is atomic and keeps the
// file's mode.
func Install(path string, opts InstallOptions) (Report, error) {
	return rewrite(opts.Root, path, entries(opts))
}

// Uninstall removes exactly plandash's hook from the file, confined to root when it is set.
func Uninstall(path, root string) (Report, error) {
	return rewrite(root, path, nil)
}

func rewrite(root, path string, want map[string][]json.RawMessage) (Report, error) {
	return settingsfile.RewriteHooks(root, path, settingsfile.Hooks{Agent: "crush", Events: HookEventNames(), Groups: want, Flat: true, CommandKey: "command"})
}

// Installed reports whether the configuration file b runs `plandash hook crush` on PreToolUse,
// for `plandash doctor`.
func installed(b []byte) bool {
	top, err := settingsfile.ParseObject(b)
	if err != nil {
		return false
	}
	raw, _ := top.Get("hooks")
	hooks, _ := settingsfile.ParseObject(raw)
	for _, m := range hooks {
		es, _ := settingsfile.ParseArray(m.Value)
		for _, e := range es {
			var h struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(e, &h) == nil && settingsfile.IsOurCommand(h.Command, "crush") {
				return true
			}
		}
	}
	return false
}

// ProjectConfigPath is the project's own Crush configuration for a project install: its
// .crush.json when there is one, else its crush.json (Crush reads both from the project root).
func ProjectConfigPath(project string) string {
	hidden := filepath.Join(project, ".crush.json")
	if st, err := os.Lstat(hidden); err == nil && st.Mode().IsRegular() {
		return hidden
	}
	return filepath.Join(project, "crush.json")
}
