package qwen

import (
	"encoding/json"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// InstallOptions says which hooks Install writes.
type InstallOptions struct {
	// Command is the plandash executable the hooks run; "plandash" (found on PATH) when empty.
	Command string
	// Server and Data are passed on as --server and --data when set.
	Server, Data string
	// Gate makes exit_plan_mode's PermissionRequest hook wait for a decision in plandash;
	// without it the plan is only recorded (Qwen Code's dialog decides at once).
	Gate bool
	// GateTimeout is the waiting hooks' timeout in MILLISECONDS; 86 400 000 (a day) when zero.
	// Qwen Code reads a timeout of 1000 or more as milliseconds, anything smaller as seconds
	// (hook-timeout.ts), and its default of 60 s is too short for a person who is away.
	GateTimeout int
	// Root confines the file written to a directory, for a project install: neither ".." nor a
	// symlink may lead out of it. Empty for the user's own settings.
	Root string
}

// Report says what Install or Uninstall changed.
type Report = settingsfile.Report

// SettingsPath is Qwen Code's user settings file: $QWEN_HOME/settings.json, else
// ~/.qwen/settings.json (Storage.getGlobalSettingsPath). A project's is .qwen/settings.json in
// it, and its hooks run only once the folder is trusted.
func SettingsPath(getenv func(string) string) string {
	if h := getenv("QWEN_HOME"); h != "" {
		return filepath.Join(h, "settings.json")
	}
	return filepath.Join(getenv("HOME"), ".qwen", "settings.json")
}

// captureTimeout is the capture hooks' timeout in seconds (under 1000, so Qwen reads seconds):
// Qwen Code waits for every hook, so a stuck one must not hold the agent long (the hook itself
// gives up after 5 s).
const captureTimeout = 10

// hookName marks plandash's hook objects (Qwen Code logs it).
const hookName = "plandash"

// HookEventNames are the events `plandash install qwen` hooks, in the order new events are
// added, for `plandash doctor` to tell an install from before some of them.
func HookEventNames() []string {
	return []string{EventSessionStart, EventUserPromptSubmit, EventPermissionRequest, EventPostToolUse,
		EventPostToolUseFailure, EventStop, EventNotification, EventSessionEnd}
}

// planTools matches the tools whose calls plandash records after they ran.
const planTools = "^(todo_write|exit_plan_mode|ask_user_question)$"

// desired is plandash's matcher groups per event for opts.
func desired(opts InstallOptions) map[string][]json.RawMessage {
	cmd := settingsfile.HookCommand(opts.Command, "qwen",
		settingsfile.Flag{Name: "--server", Value: opts.Server}, settingsfile.Flag{Name: "--data", Value: opts.Data})
	group := func(matcher string, timeout int) json.RawMessage {
		g := map[string]any{"hooks": []any{map[string]any{"name": hookName, "type": "command", "command": cmd, "timeout": timeout}}}
		if matcher != "" {
			g["matcher"] = matcher
		}
		b, _ := json.Marshal(g)
		return b
	}
	out := map[string][]json.RawMessage{}
	for _, ev := range []string{EventSessionStart, EventUserPromptSubmit, EventStop, EventNotification, EventSessionEnd} {
		out[ev] = []json.RawMessage{group("", captureTimeout)}
	}
	out[EventPostToolUse] = []json.RawMessage{group(planTools, captureTimeout)}
	out[EventPostToolUseFailure] = []json.RawMessage{group(planTools, captureTimeout)}
	long := opts.GateTimeout
	if long <= 0 {
		long = 86_400_000
	}
	plan := captureTimeout
	if opts.Gate {
		plan = long
	}
	// ask_user_question's hook holds the question until it is answered in plandash or its
	// deadline (the server's, minutes) passes, so it always gets the long timeout.
	out[EventPermissionRequest] = []json.RawMessage{group("^exit_plan_mode$", plan), group("^ask_user_question$", long)}
	return out
}

// Install merges plandash's hooks into the Qwen Code settings file at settingsPath (created
// when missing). Everything else in the settings is kept, in order; running it again changes
// nothing. A file that is not plain JSON (Qwen also accepts comments, which a rewrite would
// lose) is refused, saying where, and left untouched, as is one that is not a small, writable
// regular file (see settingsfile). The write is atomic.
func Install(settingsPath string, opts InstallOptions) (Report, error) {
	return rewrite(opts.Root, settingsPath, desired(opts))
}

// Uninstall removes exactly plandash's hooks from the settings file, confined to root when it
// is set (see InstallOptions.Root).
func Uninstall(settingsPath, root string) (Report, error) {
	return rewrite(root, settingsPath, nil)
}

func rewrite(root, path string, want map[string][]json.RawMessage) (Report, error) {
	return settingsfile.RewriteHooks(root, path, settingsfile.Hooks{Agent: "qwen", Events: HookEventNames(), Groups: want})
}
