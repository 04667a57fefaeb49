package claude

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

// desired is plandash's one matcher group per event for opts.
func desired(opts InstallOptions) map[string]json.RawMessage {
	cmd := hookCommand(opts)
	group := func(matcher string, hook map[string]any) json.RawMessage {
		var o object
		if matcher != "" {
			m, _ := json.Marshal(matcher)
			o = append(o, member{"matcher", m})
		}
		h, _ := json.Marshal(hook) // map keys sort, so the same options give the same bytes
		o = append(o, member{"hooks", marshalArray([]json.RawMessage{h})})
		return o.marshal()
	}
	capture := map[string]any{"type": "command", "command": cmd, "async": true, "timeout": captureTimeout}
	tools := planTools
	if opts.AllTools {
		tools = "*"
	}
	out := map[string]json.RawMessage{}
	for _, ev := range []string{EventSessionStart, EventUserPromptSubmit, EventTaskCreated, EventTaskCompleted, EventNotification, EventStop, EventSessionEnd} {
		out[ev] = group("", capture)
	}
	out[EventPreToolUse] = group(tools, capture)
	out[EventPostToolUse] = group(tools, capture)
	if opts.AllTools {
		out[EventPostToolUseFailure] = group("*", capture)
	}
	if opts.Gate {
		timeout := opts.GateTimeout
		if timeout <= 0 {
			timeout = 86400
		}
		out[EventPermissionRequest] = group(ToolExitPlanMode, map[string]any{"type": "command", "command": cmd, "timeout": timeout})
		// Questions wait for the person's answer in plandash: a hook that is not async, in a
		// group of its own beside the async capture of the plan tools.
		out[EventPreToolUse] = marshalArray([]json.RawMessage{out[EventPreToolUse],
			group(ToolAskUserQuestion, map[string]any{"type": "command", "command": cmd, "timeout": timeout})})
	}
	return out
}

// hookCommand is the command line the hooks run.
func hookCommand(opts InstallOptions) string {
	bin := opts.Command
	if bin == "" {
		bin = "plandash"
	}
	args := []string{shellQuote(bin), "hook", "claude"}
	if opts.Server != "" {
		args = append(args, "--server", shellQuote(opts.Server))
	}
	if opts.Data != "" {
		args = append(args, "--data", shellQuote(opts.Data))
	}
	if opts.Token != "" {
		args = append(args, "--token", shellQuote(opts.Token))
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

// isOurs reports whether a hook object runs `plandash hook claude` (under any path or name the
// executable was installed as).
func isOurs(hook json.RawMessage) bool {
	var h struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(hook, &h) != nil {
		return false
	}
	bin, rest := firstWord(strings.TrimSpace(h.Command))
	f := strings.Fields(rest)
	if len(f) < 2 || f[0] != "hook" || f[1] != "claude" {
		return false
	}
	return strings.Contains(filepath.Base(bin), "plandash")
}

// firstWord splits off a command's first shell word, which may be quoted (a path with spaces,
// as hookCommand writes it).
func firstWord(cmd string) (word, rest string) {
	if cmd == "" || (cmd[0] != '\'' && cmd[0] != '"') {
		w, r, _ := strings.Cut(cmd, " ")
		return w, r
	}
	var b strings.Builder
	for cmd != "" && (cmd[0] == '\'' || cmd[0] == '"') {
		q := cmd[0]
		end := strings.IndexByte(cmd[1:], q)
		if end < 0 {
			return cmd, ""
		}
		b.WriteString(cmd[1 : end+1])
		cmd = cmd[end+2:]
		if strings.HasPrefix(cmd, `\'`) { // the '\'' of shellQuote
			b.WriteByte('\'')
			cmd = cmd[2:]
		}
	}
	if cmd != "" && cmd[0] != ' ' {
		return b.String() + cmd, ""
	}
	return b.String(), cmd
}

// Install merges plandash's hooks into the Claude Code settings file at path (created when
// missing). Everything else in the file is kept, in order; running it again changes nothing.
// A file that is not valid JSON is refused and left untouched. The write is atomic.
func Install(path string, opts InstallOptions) (Report, error) {
	return rewrite(path, func(b []byte) ([]byte, Report, error) { return MergeHooks(b, opts) })
}

// Uninstall removes exactly plandash's hooks from the settings file at path.
func Uninstall(path string) (Report, error) {
	return rewrite(path, RemoveHooks)
}

func rewrite(path string, change func([]byte) ([]byte, Report, error)) (Report, error) {
	b, err := os.ReadFile(path)
	created := errors.Is(err, fs.ErrNotExist)
	if err != nil && !created {
		return Report{Path: path}, err
	}
	out, rep, err := change(b)
	rep.Path, rep.Created = path, created && rep.Changed
	if err != nil {
		if strings.Contains(err.Error(), "settings.json") {
			err = errors.New(strings.Replace(err.Error(), "settings.json", path, 1))
		}
		return rep, err
	}
	if !rep.Changed {
		return rep, nil
	}
	return rep, writeAtomic(path, out)
}

// writeAtomic replaces path with b through a temp file in the same directory, keeping the
// file's mode, so Claude Code never reads a half-written file.
func writeAtomic(path string, b []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".settings-plandash-*")
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

// indent formats the settings file as Claude Code writes it: two spaces, a final newline.
func indent(b []byte) []byte {
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") != nil {
		return b
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}
