package copilot

import (
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// InstallOptions says which hooks Install writes.
type InstallOptions struct {
	// Command is the plandash executable the hooks run; "plandash" (found on PATH) when empty.
	Command string
	// Server and Data are passed on as --server and --data when set.
	Server, Data string
	// Gate makes exit_plan_mode's preToolUse hook wait for a decision in plandash, and the
	// permissionRequest hook hold Copilot's permission requests (shell commands, writes…) at
	// the gate before its own prompt; without it plans are only recorded and permissions left
	// to the prompt (EnvNoGate).
	Gate bool
	// GateTimeout is the preToolUse hook's timeoutSec, in seconds; 86 400 (a day) when zero.
	// It is long with or without Gate, since ask_user's questions wait on it too (until the
	// server's question deadline, minutes); Copilot CLI's default of 30 s is too short for a
	// person who is away.
	GateTimeout int
	// Root confines the file written to a directory, for a project install: neither ".." nor a
	// symlink may lead out of it. Empty for the user's own settings.
	Root string
}

// Report says what Install or Uninstall changed.
type Report = settingsfile.Report

// SettingsPath is the user settings file Copilot CLI reads its user-level hooks from:
// $COPILOT_HOME/settings.json, ~/.copilot/settings.json when COPILOT_HOME is unset. (Hooks in a
// repository's .github/hooks/*.json, or its .github/copilot/settings.json, govern that repository
// only, and the cloud coding agent too.)
func SettingsPath(home, copilotHome string) string {
	if copilotHome == "" {
		copilotHome = filepath.Join(home, ".copilot")
	}
	return filepath.Join(copilotHome, "settings.json")
}

// captureTimeout is the capture hooks' timeoutSec: Copilot CLI waits for every hook, so a stuck
// one must not hold the agent long (the hook itself gives up after 5 s).
const captureTimeout = 10

// HookEventNames are the events `plandash install copilot` hooks, in the order they are added,
// for `plandash doctor` to tell an install from before some of them.
func HookEventNames() []string {
	return []string{EventSessionStart, EventUserPrompt, EventPreToolUse, EventPermissionRequest, EventPostToolUse, EventAgentStop,
		EventErrorOccurred, EventSessionEnd}
}

// entries is plandash's hook entry per event for opts. Copilot CLI hooks have no matcher, so
// preToolUse runs for every tool call; `plandash hook copilot` returns at once for any tool but
// exit_plan_mode.
func entries(opts InstallOptions) map[string][]json.RawMessage {
	cmd := settingsfile.HookCommand(opts.Command, "copilot",
		settingsfile.Flag{Name: "--server", Value: opts.Server}, settingsfile.Flag{Name: "--data", Value: opts.Data})
	long := opts.GateTimeout
	if long <= 0 {
		long = 86_400
	}
	out := map[string][]json.RawMessage{}
	for _, ev := range HookEventNames() {
		timeout, env := captureTimeout, map[string]string{EnvEvent: ev}
		if ev == EventPreToolUse || ev == EventPermissionRequest {
			timeout = long
			if !opts.Gate {
				env[EnvNoGate] = "1"
			}
		}
		b, _ := json.Marshal(struct {
			Type       string            `json:"type"`
			Bash       string            `json:"bash"`
			TimeoutSec int               `json:"timeoutSec"`
			Env        map[string]string `json:"env"`
		}{"command", cmd, timeout, env})
		out[ev] = []json.RawMessage{b}
	}
	return out
}

// Install merges plandash's hooks into the Copilot CLI settings file at settingsPath (created
// when missing). Everything else in the file is kept, in order; running it again changes
// nothing. A file that is not plain JSON is refused and left untouched, as is one that is not a
// small, writable regular file (see settingsfile). The write is atomic and keeps the file's
// mode.
func Install(settingsPath string, opts InstallOptions) (Report, error) {
	return rewrite(opts.Root, settingsPath, entries(opts))
}

// Uninstall removes exactly plandash's hooks from the settings file, confined to root when it
// is set (see InstallOptions.Root).
func Uninstall(settingsPath, root string) (Report, error) {
	return rewrite(root, settingsPath, nil)
}

func rewrite(root, path string, want map[string][]json.RawMessage) (Report, error) {
	return settingsfile.RewriteHooks(root, path, settingsfile.Hooks{Agent: "copilot", Events: HookEventNames(), Groups: want, Flat: true, CommandKey: "bash"})
}

// Installed reports which of HookEventNames the settings file b runs `plandash hook copilot`
// for, for `plandash doctor`.
func installedEvents(b []byte) []string {
	top, err := settingsfile.ParseObject(b)
	if err != nil {
		return nil
	}
	raw, _ := top.Get("hooks")
	hooks, _ := settingsfile.ParseObject(raw)
	var out []string
	for _, m := range hooks {
		es, _ := settingsfile.ParseArray(m.Value)
		for _, e := range es {
			var h struct {
				Bash string `json:"bash"`
			}
			if json.Unmarshal(e, &h) == nil && settingsfile.IsOurCommand(h.Bash, "copilot") && !slices.Contains(out, m.Key) {
				out = append(out, m.Key)
			}
		}
	}
	return out
}
