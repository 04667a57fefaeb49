package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The demo's two agents that wait on a person outside the gate, as Claude Code does through
// its hooks (POST /api/v1/hooks/claude, the route `plandash hook claude` posts to): one asks a
// question and goes on with the answer; one ends its turn and waits for the next prompt.

// questionAgent asks which database to use and waits for the answer on the dashboard; nobody
// answering within two minutes (demo time) falls back to what a terminal would ask.
func questionAgent(r *run) error {
	sid := fmt.Sprintf("demo-ask-%d-%d", r.round, time.Now().UnixNano())
	const cwd = "/home/dev/billing"
	r.a.opened(sid)
	r.hook(hookEvent{"session_id": sid, "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": "Add storage to the billing service"})
	if !r.pause(2 * time.Second) {
		return r.err
	}
	question := "Which database should the billing service use?"
	input := hookEvent{"questions": []hookEvent{{"question": question, "header": "Database", "multiSelect": false,
		"options": []hookEvent{
			{"label": "PostgreSQL", "description": "A server: several instances share it"},
			{"label": "SQLite", "description": "One file next to the binary"},
		}}}}
	ask := hookEvent{"session_id": sid, "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": "AskUserQuestion",
		"tool_use_id": fmt.Sprintf("toolu_demo_%d", r.round), "tool_input": input}
	ctx, cancel := context.WithTimeout(r.ctx, time.Duration(float64(2*time.Minute)/r.a.Speed))
	out, _ := r.a.API.AgentHook(ctx, "claude", mustJSON(ask), true)
	cancel()
	answer := "no answer (the terminal would ask)"
	var got struct {
		Out struct {
			Input struct {
				Answers map[string]string `json:"answers"`
			} `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(out, &got) == nil && got.Out.Input.Answers[question] != "" {
		answer = got.Out.Input.Answers[question]
	}
	r.hook(hookEvent{"session_id": sid, "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": "AskUserQuestion",
		"tool_use_id": ask["tool_use_id"], "tool_input": input, "tool_response": hookEvent{"answers": hookEvent{question: answer}}})
	if !r.pause(3 * time.Second) {
		return r.err
	}
	r.hook(hookEvent{"session_id": sid, "cwd": cwd, "hook_event_name": "Stop", "last_assistant_message": "Going with " + answer + ": the schema and migrations are in place."})
	if !r.pause(4 * time.Second) {
		return r.err
	}
	r.endSession(sid)
	return r.err
}

// idleAgent finishes a turn and waits for the next prompt; a while later "the person" types
// and it works on.
func idleAgent(r *run) error {
	sid := fmt.Sprintf("demo-idle-%d-%d", r.round, time.Now().UnixNano())
	const cwd = "/home/dev/gateway"
	r.a.opened(sid)
	r.hook(hookEvent{"session_id": sid, "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": "Add rate limiting to the gateway"})
	r.hook(hookEvent{"session_id": sid, "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "toolu_idle_1",
		"tool_input": hookEvent{"command": "go test ./...", "description": "Run the tests"}})
	if !r.pause(2 * time.Second) {
		return r.err
	}
	r.hook(hookEvent{"session_id": sid, "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_idle_1",
		"tool_input": hookEvent{"command": "go test ./..."}, "tool_response": hookEvent{"stdout": "ok  gateway 0.412s"}})
	r.hook(hookEvent{"session_id": sid, "cwd": cwd, "hook_event_name": "Stop",
		"last_assistant_message": "Rate limiting is in place and 42 tests pass. Shall I also export the limiter's metrics?"})
	if !r.pause(25 * time.Second) {
		return r.err
	}
	r.hook(hookEvent{"session_id": sid, "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": "Yes, export them"})
	if !r.pause(3 * time.Second) {
		return r.err
	}
	r.endSession(sid)
	return r.err
}

type hookEvent map[string]any

// openSessionsFile, in the demo's directory, names the hook sessions a run started and has not
// ended yet. A demo stopped mid-round (Ctrl-C, a kill) leaves them waiting for ever ("waits for
// your next prompt", since hours), so the next run ends them before it starts its own.
const openSessionsFile = "open-hook-sessions"

// opened records that the session sid began.
func (a *Agent) opened(sid string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.open = append(a.open, sid)
	a.writeOpen()
}

// endSession ends the session sid as the person leaving Claude Code does, and forgets it.
func (r *run) endSession(sid string) {
	r.hook(hookEvent{"session_id": sid, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
	if r.err != nil {
		return
	}
	r.a.mu.Lock()
	defer r.a.mu.Unlock()
	r.a.open = slices.DeleteFunc(r.a.open, func(s string) bool { return s == sid })
	r.a.writeOpen()
}

// writeOpen writes the open sessions' file; a.mu is held. The file is a convenience for the
// next run: failing to write it stops nothing.
func (a *Agent) writeOpen() {
	path := filepath.Join(a.Dir, openSessionsFile)
	if len(a.open) == 0 {
		os.Remove(path)
		return
	}
	os.WriteFile(path, []byte(strings.Join(a.open, "\n")+"\n"), 0o644)
}

// endStale ends the sessions an earlier run left open, then forgets them.
func (a *Agent) endStale(ctx context.Context) error {
	path := filepath.Join(a.Dir, openSessionsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, sid := range strings.Fields(string(b)) {
		ev := hookEvent{"session_id": sid, "hook_event_name": "SessionEnd", "reason": "other"}
		if _, err := a.API.AgentHook(ctx, "claude", mustJSON(ev), false); err != nil {
			return fmt.Errorf("demo: ending session %s of an earlier run: %w", sid, err)
		}
	}
	return os.Remove(path)
}

// hook posts one event nobody waits on.
func (r *run) hook(ev hookEvent) {
	if r.err != nil {
		return
	}
	if _, err := r.a.API.AgentHook(r.ctx, "claude", mustJSON(ev), false); err != nil {
		r.err = fmt.Errorf("demo: %w", err)
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings and slices always encode
	}
	return b
}
