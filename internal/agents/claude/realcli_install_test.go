package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// TestRealClaudeInstallKeepsUserSettings: Install merges plandash's hooks into a project's
// .claude/settings.json laid out with four spaces and CRLF that already holds the user's own
// Stop hook, keeping that layout; Uninstall gives the file back byte for byte. Installed again,
// the real Claude Code CLI reads the merged file and runs both the user's hook and plandash's
// SessionStart and UserPromptSubmit hooks (here a script named plandash that records what it
// is given); uninstalled after the run, the file is the user's again, byte for byte.
func TestRealClaudeInstallKeepsUserSettings(t *testing.T) {
	needRealCLI(t)
	dir := t.TempDir()
	userRec, ourRec := filepath.Join(dir, "user.jsonl"), filepath.Join(dir, "plandash.jsonl")
	bin := filepath.Join(dir, "bin", "plandash")
	// One write per run: Claude Code runs hooks at once (SessionStart beside UserPromptSubmit),
	// and a record written in parts interleaved with another's.
	script := "#!/bin/sh\nline=\"$* $(tr -d '\\n')\"\nprintf '%s\\n' \"$line\" >> " + agenttest.ShellQuote(ourRec) + "\n"
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := agenttest.NewModelServer(t)
	c := agenttest.NewClaude(t, srv, map[string]any{"hooks": map[string]any{
		EventStop: []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": agenttest.RecordHook(userRec, "")}}}}}})
	path := filepath.Join(c.Dir, ".claude", "settings.json")
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var four bytes.Buffer
	if err := json.Indent(&four, written, "", "    "); err != nil {
		t.Fatal(err)
	}
	user := append(bytes.ReplaceAll(bytes.TrimSpace(four.Bytes()), []byte("\n"), []byte("\r\n")), "\r\n"...)
	if err := os.WriteFile(path, user, 0o600); err != nil {
		t.Fatal(err)
	}

	opts := InstallOptions{Command: bin, Server: "http://127.0.0.1:1"}
	if rep, err := Install(path, opts); err != nil || !rep.Changed {
		t.Fatalf("install: %+v %v", rep, err)
	}
	merged, _ := os.ReadFile(path)
	if !bytes.Contains(merged, []byte("\r\n        \""+EventSessionStart+"\": [\r\n            {\r\n                \"hooks\": [\r\n")) ||
		bytes.Count(merged, []byte("\n")) != bytes.Count(merged, []byte("\r\n")) {
		t.Errorf("the merged file does not keep the user's layout:\n%q", merged)
	}
	if _, err := Uninstall(path, ""); err != nil {
		t.Fatal(err)
	}
	if back, _ := os.ReadFile(path); !bytes.Equal(back, user) {
		t.Fatalf("uninstall did not give the user's file back:\n%q\nwant\n%q", back, user)
	}
	if _, err := Install(path, opts); err != nil {
		t.Fatal(err)
	}

	srv.Script(agenttest.Turn{Text: "All done."})
	res := c.Print(3*time.Minute, "say done", "--model", "claude-sonnet-4-5")
	if res.Err != nil {
		t.Fatalf("claude -p: %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Err, res.Stdout, res.Stderr, srv.Summary())
	}
	if b, err := os.ReadFile(userRec); err != nil || !strings.Contains(string(b), `"hook_event_name":"Stop"`) {
		t.Errorf("the user's own Stop hook did not run: %v %s", err, b)
	}
	// plandash's capture hooks are async, and `claude -p` may exit before its last one (Stop)
	// has run: the two that start before the model is asked must have run.
	want := []string{EventSessionStart, EventUserPromptSubmit}
	deadline := time.Now().Add(30 * time.Second)
	var got []byte
	for {
		got, _ = os.ReadFile(ourRec)
		missing := false
		for _, ev := range want {
			missing = missing || !bytes.Contains(got, []byte(`"hook_event_name":"`+ev+`"`))
		}
		if !missing || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, ev := range want {
		if !bytes.Contains(got, []byte(`"hook_event_name":"`+ev+`"`)) {
			t.Errorf("plandash's %s hook did not run; it got:\n%s", ev, got)
		}
	}
	if !bytes.HasPrefix(got, []byte("hook claude --server http://127.0.0.1:1 {")) {
		t.Errorf("plandash's hook ran with other arguments:\n%s", got)
	}

	if _, err := Uninstall(path, ""); err != nil {
		t.Fatal(err)
	}
	if back, _ := os.ReadFile(path); !bytes.Equal(back, user) {
		t.Errorf("after the run, uninstall did not give the user's file back:\n%q\nwant\n%q", back, user)
	}
}
