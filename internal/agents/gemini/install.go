package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// desired is plandash's one matcher group per event for opts.
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
	out[EventAfterTool] = group("^(write_todos|exit_plan_mode)$", captureTimeout)
	timeout := captureTimeout
	if opts.Gate {
		timeout = opts.GateTimeout
		if timeout <= 0 {
			timeout = 86_400_000
		}
	}
	out[EventBeforeTool] = group("^exit_plan_mode$", timeout)
	return out
}

// hookEvents is the order new events are added in.
func hookEvents() []string {
	return []string{EventSessionStart, EventBeforeAgent, EventBeforeTool, EventAfterTool, EventAfterAgent, EventNotification, EventSessionEnd}
}

func hookCommand(opts InstallOptions) string {
	bin := opts.Command
	if bin == "" {
		bin = "plandash"
	}
	args := []string{shellQuote(bin), "hook", "gemini"}
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

// Install merges plandash's hooks into the Gemini CLI settings file at settingsPath (created
// when missing) and, with Gate, writes the policy file; without Gate it removes plandash's
// policy file. Everything else in the settings is kept, in order; running it again changes
// nothing. A file that is not plain JSON (Gemini also accepts comments) is refused and left
// untouched. Writes are atomic.
func Install(settingsPath string, opts InstallOptions) (Report, error) {
	rep, err := rewrite(settingsPath, desired(opts))
	if err != nil {
		return rep, err
	}
	rep.Policy = policyPath(settingsPath, opts.PolicyPath)
	if opts.Gate {
		rep.PolicyChanged, err = writeIfDifferent(rep.Policy, []byte(Policy))
	} else {
		rep.PolicyChanged, err = removeOurPolicy(rep.Policy)
	}
	return rep, err
}

// Uninstall removes exactly plandash's hooks from the settings file and plandash's policy file.
func Uninstall(settingsPath, policy string) (Report, error) {
	rep, err := rewrite(settingsPath, nil)
	if err != nil {
		return rep, err
	}
	rep.Policy = policyPath(settingsPath, policy)
	rep.PolicyChanged, err = removeOurPolicy(rep.Policy)
	return rep, err
}

func policyPath(settingsPath, explicit string) string {
	if explicit != "" {
		return explicit
	}
	return filepath.Join(filepath.Dir(settingsPath), "policies", "plandash.toml")
}

func writeIfDifferent(path string, b []byte) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return false, nil
	}
	return true, writeAtomic(path, b)
}

// removeOurPolicy removes the policy file only when it is the one plandash wrote.
func removeOurPolicy(path string) (bool, error) {
	old, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !bytes.Equal(old, []byte(Policy)) {
		return false, fmt.Errorf("%s was changed by hand; plandash left it in place", path)
	}
	return true, os.Remove(path)
}

func rewrite(path string, want map[string]json.RawMessage) (Report, error) {
	rep := Report{Path: path}
	b, err := os.ReadFile(path)
	created := errors.Is(err, fs.ErrNotExist)
	if err != nil && !created {
		return rep, err
	}
	out, changed, err := MergeHooks(b, want)
	if err != nil {
		return rep, fmt.Errorf("%s: %w; the file was left untouched", path, err)
	}
	if !changed {
		return rep, nil
	}
	rep.Changed, rep.Created = true, created
	return rep, writeAtomic(path, out)
}

// writeAtomic replaces path with b through a temp file in the same directory, keeping the
// file's mode, so Gemini CLI never reads a half-written file.
func writeAtomic(path string, b []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".plandash-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename there is nothing left to remove
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
