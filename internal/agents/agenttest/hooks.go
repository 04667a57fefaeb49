package agenttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"
)

// ShellQuote quotes s for a POSIX shell command line.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// RecordHook returns a hook shell command that appends the hook's stdin (one JSON event) to
// path as one line, then prints reply (may be empty) on stdout as the hook's answer. The
// event is written before the answer, so a test that sees the answer's effect can read it.
func RecordHook(path, reply string) string {
	// tr drops the event's own newlines (JSON needs none), so each call is exactly one line.
	cmd := "tr -d '\\n' >> " + ShellQuote(path) + " && echo >> " + ShellQuote(path)
	if reply != "" {
		cmd += " && printf '%s' " + ShellQuote(reply)
	}
	return cmd
}

// EchoAllowHook returns a PermissionRequest hook command that records its stdin to path like
// RecordHook, then answers "allow" with updatedInput = the event's tool_input, which
// ExitPlanMode needs for an allow to count (shared/spec/agents.md §1.3). When plan is not
// empty it replaces tool_input.plan, to try "approve as edited". It uses node for the JSON,
// which is always there where the CLIs were installed from npm.
func EchoAllowHook(path, plan string) string {
	js := `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{` +
		`require("fs").appendFileSync(process.argv[1],s.replace(/\n/g,"")+"\n");` +
		`const e=JSON.parse(s);const u=Object.assign({},e.tool_input);` +
		`if(process.argv[2])u.plan=process.argv[2];` +
		`process.stdout.write(JSON.stringify({hookSpecificOutput:{hookEventName:e.hook_event_name,` +
		`decision:{behavior:"allow",updatedInput:u}}}))})`
	return "node -e " + ShellQuote(js) + " " + ShellQuote(path) + " " + ShellQuote(plan)
}

// DenyReply is the JSON a PermissionRequest hook prints to deny with a message.
func DenyReply(message string) string {
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PermissionRequest",
		"decision":      map[string]any{"behavior": "deny", "message": message},
	}})
	return string(b)
}

// HookEvents reads the events a RecordHook/EchoAllowHook command appended to path (none if
// the file does not exist yet).
func HookEvents(t testing.TB, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("agenttest: %s: a hook event is not JSON: %v\n%s", path, err, sc.Text())
		}
		out = append(out, ev)
	}
	return out
}

// WaitHookEvent polls path until a recorded event satisfies match, or fails the test after
// timeout. The CLI writes the file from another process, so polling is the only signal.
func WaitHookEvent(t testing.TB, path string, timeout time.Duration, match func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		evs := HookEvents(t, path)
		for _, ev := range evs {
			if match(ev) {
				return ev
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("agenttest: no matching hook event in %s within %v; got %d events", path, timeout, len(evs))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func jsonIndent(v any) ([]byte, error) {
	return json.MarshalIndent(v, "", "  ")
}
