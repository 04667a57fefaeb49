package droid

import (
	"encoding/json"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// InstallOptions says which hooks Install writes.
type InstallOptions struct {
	// Command is the plandash executable the hooks run; "plandash" (found on PATH) when empty.
	Command string
	// Server and Data are passed on as --server and --data when set.
	Server, Data string
	// Gate makes ExitSpecMode's PreToolUse hook wait for a decision in plandash. Without it the
	// spec is only shown, and Droid's own dialog decides.
	Gate bool
	// GateTimeout is the waiting hooks' timeout in SECONDS (Droid's unit); 86 400 (a day) when
	// zero. Droid's default of 60 is too short for a person who is away.
	GateTimeout int
	// Root confines the file written to a directory, for a project install
	// (.factory/settings.json): neither ".." nor a symlink may lead out of it. Empty for the
	// user's own ~/.factory/settings.json.
	Root string
}

// Report says what Install or Uninstall changed.
type Report = settingsfile.Report

// captureTimeout is the capture hooks' timeout in seconds: Droid waits for every hook, so a
// stuck one must not hold the agent long (the hook itself gives up after 5 s).
const captureTimeout = 10

// HookEventNames are the events `plandash install droid` hooks, for `plandash doctor` to tell
// an install from before some of them.
func HookEventNames() []string {
	return []string{EventSessionStart, EventUserPromptSubmit, EventPreToolUse, EventPostToolUse, EventNotification, EventStop, EventSessionEnd}
}

// desired is plandash's matcher groups per event for opts.
func desired(opts InstallOptions) map[string][]json.RawMessage {
	cmd := settingsfile.HookCommand(opts.Command, AgentName,
		settingsfile.Flag{Name: "--server", Value: opts.Server}, settingsfile.Flag{Name: "--data", Value: opts.Data})
	group := func(matcher string, timeout int) json.RawMessage {
		g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": timeout}}}
		if matcher != "" {
			g["matcher"] = matcher
		}
		b, _ := json.Marshal(g)
		return b
	}
	long := opts.GateTimeout
	if long <= 0 {
		long = 86_400
	}
	out := map[string][]json.RawMessage{}
	for _, ev := range []string{EventSessionStart, EventUserPromptSubmit, EventNotification, EventStop, EventSessionEnd} {
		out[ev] = []json.RawMessage{group("", captureTimeout)}
	}
	out[EventPostToolUse] = []json.RawMessage{group(ToolTodoWrite+"|"+ToolExitSpecMode+"|"+ToolAskUser, captureTimeout)}
	// AskUser's hook holds the question until it is answered in plandash or its deadline (the
	// server's, minutes) passes, so it always gets the long timeout.
	pre := []json.RawMessage{group(ToolAskUser, long)}
	if opts.Gate {
		pre = append([]json.RawMessage{group(ToolExitSpecMode, long)}, pre...)
	} else {
		pre = append([]json.RawMessage{group(ToolExitSpecMode, captureTimeout)}, pre...)
	}
	out[EventPreToolUse] = pre
	return out
}

// Install merges plandash's hooks into Droid's settings file at settingsPath (created when
// missing; ~/.factory/settings.json, or a project's .factory/settings.json with Root set).
// Everything else in the settings is kept, in order (Droid rewrites this file itself, adding
// trusted folders and model ids, and keeps what it does not know); running it again changes
// nothing. A file that is not plain JSON, or not a small writable regular file, is refused,
// saying where, and left untouched (see settingsfile). The write is atomic, mode kept.
func Install(settingsPath string, opts InstallOptions) (Report, error) {
	return rewrite(opts.Root, settingsPath, desired(opts))
}

// Uninstall removes exactly plandash's hooks from the settings file, confined to root when it
// is set (see InstallOptions.Root).
func Uninstall(settingsPath, root string) (Report, error) {
	return rewrite(root, settingsPath, nil)
}

func rewrite(root, path string, want map[string][]json.RawMessage) (Report, error) {
	return settingsfile.RewriteHooks(root, path, settingsfile.Hooks{Agent: AgentName, Events: HookEventNames(), Groups: want})
}
