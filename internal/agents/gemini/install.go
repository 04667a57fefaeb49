package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// InstallOptions says which hooks Install writes.
type InstallOptions struct {
	// Command is the plandash executable the hooks run; "plandash" (found on PATH) when empty.
	Command string
	// Server and Data are passed on as --server and --data when set.
	Server, Data string
	// Gate makes exit_plan_mode's BeforeTool hook wait for a decision in plandash, and writes
	// the policy file that lets exit_plan_mode through without Gemini CLI's own dialog.
	Gate bool
	// GateTimeout is that hook's timeout in MILLISECONDS (Gemini's unit); 86 400 000 (a day)
	// when zero. Gemini's default of 60 000 is too short for a person who is away.
	GateTimeout int
	// PolicyPath is where the policy file goes: policies/plandash.toml next to the settings
	// file when empty (~/.gemini/policies/plandash.toml for the user settings).
	PolicyPath string
	// Root confines the files written to a directory, for a project install: neither ".." nor
	// a symlink may lead out of it. Empty for the user's own settings.
	Root string
}

// Report says what Install or Uninstall changed.
type Report struct {
	Path    string
	Created bool // the settings file did not exist
	Changed bool // the settings file was written
	// Policy is the policy file's path; PolicyChanged says it was written or removed.
	Policy        string
	PolicyChanged bool
}

// String says it in a sentence, for the command's output.
func (r Report) String() string {
	var parts []string
	switch {
	case r.Created:
		parts = append(parts, r.Path+" created")
	case r.Changed:
		parts = append(parts, r.Path+" updated")
	default:
		parts = append(parts, r.Path+" already up to date")
	}
	if r.PolicyChanged {
		parts = append(parts, r.Policy+" written or removed")
	}
	return strings.Join(parts, "; ")
}

// captureTimeout is the capture hooks' timeout in milliseconds: Gemini CLI waits for every
// hook, so a stuck one must not hold the agent long (the hook itself gives up after 5 s).
const captureTimeout = 10000

// hookName marks plandash's hook objects (Gemini shows it in /hooks).
const hookName = "plandash"

// Policy is the policy file Install writes with Gate: it allows exit_plan_mode in plan mode at
// the user tier, so Gemini CLI shows no approval dialog and plandash's BeforeTool hook is the
// gate (without it the terminal dialog would ask again after plandash approved).
const Policy = `# Written by plandash install gemini --gate: plandash's BeforeTool hook on exit_plan_mode
# holds the plan for approval in the dashboard, so Gemini CLI's own dialog is skipped.
# Remove with plandash install gemini --uninstall.
[[rule]]
toolName = "exit_plan_mode"
decision = "allow"
priority = 100
modes = ["plan"]
`

// desired is plandash's matcher groups per event for opts: one, or for BeforeTool two (the
// plan gate and questions, with their own timeouts).
func desired(opts InstallOptions) map[string]json.RawMessage {
	cmd := hookCommand(opts)
	group := func(matcher string, timeout int) json.RawMessage {
		g := map[string]any{"hooks": []any{map[string]any{"name": hookName, "type": "command", "command": cmd, "timeout": timeout}}}
		if matcher != "" {
			g["matcher"] = matcher
		}
		b, _ := json.Marshal(g)
		return b
	}
	out := map[string]json.RawMessage{}
	for _, ev := range []string{EventSessionStart, EventBeforeAgent, EventAfterAgent, EventNotification, EventSessionEnd} {
		out[ev] = group("", captureTimeout)
	}
	out[EventAfterTool] = group("^(write_todos|exit_plan_mode|ask_user)$", captureTimeout)
	long := opts.GateTimeout
	if long <= 0 {
		long = 86_400_000
	}
	timeout := captureTimeout
	if opts.Gate {
		timeout = long
	}
	// ask_user's hook holds the question until it is answered in plandash or its deadline (the
	// server's, minutes) passes, so it always gets the long timeout; it needs no policy, as a
	// deny answers the call without a dialog.
	b, _ := json.Marshal([]json.RawMessage{group("^exit_plan_mode$", timeout), group("^ask_user$", long)})
	out[EventBeforeTool] = b
	return out
}

// HookEventNames are the events `plandash install gemini` hooks, for `plandash doctor` to tell
// an install from before some of them.
func HookEventNames() []string { return hookEvents() }

// hookEvents is the order new events are added in.
func hookEvents() []string {
	return []string{EventSessionStart, EventBeforeAgent, EventBeforeTool, EventAfterTool, EventAfterAgent, EventNotification, EventSessionEnd}
}

// hookCommand is the command line the hooks run.
func hookCommand(opts InstallOptions) string {
	return settingsfile.HookCommand(opts.Command, "gemini",
		settingsfile.Flag{Name: "--server", Value: opts.Server}, settingsfile.Flag{Name: "--data", Value: opts.Data})
}

// Install merges plandash's hooks into the Gemini CLI settings file at settingsPath (created
// when missing) and, with Gate, writes the policy file; without Gate it removes plandash's
// policy file. Everything else in the settings is kept, in order; running it again changes
// nothing. A file that is not plain JSON (Gemini also accepts comments, which a rewrite would
// lose) is refused, saying where, and left untouched, as is one that is not a small, writable regular file (see settingsfile); in a
// project the policy file must stay in the project too (a policies directory linked to the
// user's would allow exit_plan_mode everywhere). Writes are atomic.
func Install(settingsPath string, opts InstallOptions) (Report, error) {
	root := opts.Root
	policy := policyPath(settingsPath, opts.PolicyPath)
	// The policy file is checked first, so a policy that cannot be written (its directory
	// linked out of the project, a FIFO, a read-only file) leaves the settings untouched too.
	old, err := settingsfile.Read(root, policy)
	if err == nil && old.Exists && (opts.Gate != bytes.Equal(old.Data, []byte(Policy))) {
		err = old.CheckWritable(policy) // the policy would be written or removed
	}
	if err != nil {
		return Report{Path: settingsPath, Policy: policy}, err
	}
	rep, err := rewrite(root, settingsPath, desired(opts))
	if err != nil {
		return rep, err
	}
	rep.Policy = policy
	if opts.Gate {
		rep.PolicyChanged, err = writeIfDifferent(root, rep.Policy, []byte(Policy))
	} else {
		rep.PolicyChanged, err = removeOurPolicy(root, rep.Policy)
	}
	return rep, err
}

// Uninstall removes exactly plandash's hooks from the settings file and plandash's policy file,
// confined to root when it is set (see InstallOptions.Root).
func Uninstall(settingsPath, policy, root string) (Report, error) {
	rep, err := rewrite(root, settingsPath, nil)
	if err != nil {
		return rep, err
	}
	rep.Policy = policyPath(settingsPath, policy)
	rep.PolicyChanged, err = removeOurPolicy(root, rep.Policy)
	return rep, err
}

func policyPath(settingsPath, explicit string) string {
	if explicit != "" {
		return explicit
	}
	return filepath.Join(filepath.Dir(settingsPath), "policies", "plandash.toml")
}

func writeIfDifferent(root, path string, b []byte) (bool, error) {
	old, err := settingsfile.Read(root, path)
	if err != nil {
		return false, err
	}
	if old.Exists && bytes.Equal(old.Data, b) {
		return false, nil
	}
	return true, settingsfile.Write(root, path, b)
}

// removeOurPolicy removes the policy file only when it is the one plandash wrote.
func removeOurPolicy(root, path string) (bool, error) {
	old, err := settingsfile.Read(root, path)
	if err != nil || !old.Exists {
		return false, err
	}
	if !bytes.Equal(old.Data, []byte(Policy)) {
		return false, fmt.Errorf("%s was changed by hand; plandash left it in place", path)
	}
	return true, settingsfile.Remove(root, path)
}

func rewrite(root, path string, want map[string]json.RawMessage) (Report, error) {
	rep := Report{Path: path}
	f, err := settingsfile.Read(root, path)
	if err != nil {
		return rep, err
	}
	out, changed, err := merge(path, f.Data, want)
	if err != nil || !changed {
		return rep, err
	}
	rep.Changed, rep.Created = true, !f.Exists
	return rep, settingsfile.Write(root, path, out)
}
