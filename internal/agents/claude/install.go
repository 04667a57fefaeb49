package claude

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// InstallOptions says which hooks Install writes.
type InstallOptions struct {
	// Command is the plandash executable the hooks run; "plandash" (found on PATH) when empty.
	Command string
	// Server and Data are passed on as --server and --data when set.
	Server, Data string
	// Token is passed on as --token when set. It is then stored in the settings file in clear
	// text, readable by whoever can read that file; $PLANDASH_TOKEN or the data directory's
	// token file keep it out of the settings.
	Token string
	// Gate adds the synchronous PermissionRequest hook that holds plan-mode plans for approval.
	Gate bool
	// GateTimeout is that hook's timeout in seconds; 86400 (a day) when zero. Claude Code's
	// default of 600 s is too short for a person who is away.
	GateTimeout int
	// AllTools captures every tool call, not only the tools that carry plans.
	AllTools bool
	// Root confines the files written to a directory, for a project install: neither ".." nor
	// a symlink may lead out of it. Empty for the user's own settings.
	Root string
}

// Report says what Install or Uninstall changed.
type Report struct {
	Path    string
	Created bool     // the file did not exist
	Changed bool     // the file was written
	Added   []string // hook events plandash's entries were added to
	Updated []string // events whose plandash entries were replaced
	Removed []string // events plandash's entries were removed from
}

// String says it in a sentence or two, for the command's output.
func (r Report) String() string {
	if !r.Changed {
		return r.Path + ": already up to date, nothing changed"
	}
	var parts []string
	for _, p := range []struct {
		what string
		evs  []string
	}{{"added", r.Added}, {"updated", r.Updated}, {"removed", r.Removed}} {
		if len(p.evs) > 0 {
			parts = append(parts, p.what+" "+strings.Join(p.evs, ", "))
		}
	}
	verb := "updated"
	if r.Created {
		verb = "created"
	}
	return fmt.Sprintf("%s %s: %s", r.Path, verb, strings.Join(parts, "; "))
}

// planTools is the matcher for the tools whose calls carry plans.
const planTools = "TodoWrite|TaskCreate|TaskUpdate|ExitPlanMode"

// captureTimeout is the capture hooks' timeout in seconds: they are async, but a stuck one
// should not linger.
const captureTimeout = 30

// hookEvents is the order new events are added in (a function, so no package state can change).
func hookEvents() []string {
	return []string{EventSessionStart, EventUserPromptSubmit, EventPreToolUse, EventPostToolUse, EventPostToolUseFailure,
		EventPermissionRequest, EventTaskCreated, EventTaskCompleted, EventNotification, EventStop, EventSessionEnd}
}

// desired is plandash's matcher groups per event for opts: one, or for PreToolUse with the
// gate two.
func desired(opts InstallOptions) map[string][]json.RawMessage {
	cmd := hookCommand(opts)
	group := func(matcher string, hook map[string]any) json.RawMessage {
		o := settingsfile.Object{}
		if matcher != "" {
			m, _ := json.Marshal(matcher)
			o.Set("matcher", m)
		}
		h, _ := json.Marshal(hook) // map keys sort, so the same options give the same bytes
		o.Set("hooks", settingsfile.MarshalArray([]json.RawMessage{h}))
		return o.Marshal()
	}
	capture := map[string]any{"type": "command", "command": cmd, "async": true, "timeout": captureTimeout}
	tools := planTools
	if opts.AllTools {
		tools = "*"
	}
	out := map[string][]json.RawMessage{}
	for _, ev := range []string{EventSessionStart, EventUserPromptSubmit, EventTaskCreated, EventTaskCompleted, EventNotification, EventStop, EventSessionEnd} {
		out[ev] = []json.RawMessage{group("", capture)}
	}
	out[EventPreToolUse] = []json.RawMessage{group(tools, capture)}
	out[EventPostToolUse] = []json.RawMessage{group(tools, capture)}
	if opts.AllTools {
		out[EventPostToolUseFailure] = []json.RawMessage{group("*", capture)}
	}
	if opts.Gate {
		timeout := opts.GateTimeout
		if timeout <= 0 {
			timeout = 86400
		}
		out[EventPermissionRequest] = []json.RawMessage{group(ToolExitPlanMode, map[string]any{"type": "command", "command": cmd, "timeout": timeout})}
		// Questions wait for the person's answer in plandash: a hook that is not async, in a
		// group of its own beside the async capture of the plan tools.
		out[EventPreToolUse] = append(out[EventPreToolUse],
			group(ToolAskUserQuestion, map[string]any{"type": "command", "command": cmd, "timeout": timeout}))
	}
	return out
}

// hookCommand is the command line the hooks run.
func hookCommand(opts InstallOptions) string {
	return settingsfile.HookCommand(opts.Command, "claude", settingsfile.Flag{Name: "--server", Value: opts.Server},
		settingsfile.Flag{Name: "--data", Value: opts.Data}, settingsfile.Flag{Name: "--token", Value: opts.Token})
}

// Install merges plandash's hooks into the Claude Code settings file at path (created when
// missing). Everything else in the file is kept, in order; running it again changes nothing.
// A file that is not plain JSON is refused and left untouched, as is one that is not a small,
// writable regular file (see settingsfile). The write is atomic.
func Install(path string, opts InstallOptions) (Report, error) {
	return rewrite(opts.Root, path, desired(opts))
}

// Uninstall removes exactly plandash's hooks from the settings file at path, confined to root
// when it is set (see InstallOptions.Root).
func Uninstall(path, root string) (Report, error) {
	return rewrite(root, path, nil)
}

func rewrite(root, path string, want map[string][]json.RawMessage) (Report, error) {
	f, err := settingsfile.Read(root, path)
	if err != nil {
		return Report{Path: path}, err
	}
	out, rep, err := merge(path, f.Data, want)
	rep.Path, rep.Created = path, !f.Exists && rep.Changed
	if err != nil || !rep.Changed {
		return rep, err
	}
	return rep, settingsfile.Write(root, path, out)
}
