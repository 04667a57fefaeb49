package gemini

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// TestRealGeminiInstallKeepsUserSettings: Install merges plandash's hooks into a user's
// settings.json laid out with tabs and CRLF that already holds the user's own AfterAgent hook,
// keeping that layout; Uninstall gives the file back byte for byte. Installed again, the real
// Gemini CLI reads the merged file and runs both the user's hook and plandash's (this test
// binary, linked as "plandash", running RunHook against Service.Handle). Gemini CLI rewrites
// its settings on start (it migrates old keys), so the last uninstall is checked for what it
// removes and keeps only.
func TestRealGeminiInstallKeepsUserSettings(t *testing.T) {
	if testing.Short() && os.Getenv(agenttest.EnvAgentTests) != "1" {
		t.Skip("agent CLI tests are slow; skipped with -short")
	}
	svc := NewService(newPlans(t), newGate(t), Config{Host: "server"})
	var mu sync.Mutex
	var events []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var ev struct {
			Name string `json:"hook_event_name"`
		}
		_ = json.Unmarshal(body, &ev)
		mu.Lock()
		events = append(events, ev.Name)
		mu.Unlock()
		ans, err := svc.Handle(r.Context(), body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write(ans)
	}))
	t.Cleanup(hs.Close)

	rec := filepath.Join(t.TempDir(), "user-hook.jsonl")
	srv := agenttest.NewModelServer(t)
	cli := agenttest.NewGemini(t, srv, map[string]any{"hooks": map[string]any{
		EventAfterAgent: []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": agenttest.RecordHook(rec, "")}}}}}})
	cli.Env = append(cli.Env, envHookURL+"="+hs.URL)
	path := filepath.Join(cli.Home, ".gemini", "settings.json")
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tabs bytes.Buffer
	if err := json.Indent(&tabs, written, "", "\t"); err != nil {
		t.Fatal(err)
	}
	user := bytes.ReplaceAll(bytes.TrimSpace(tabs.Bytes()), []byte("\n"), []byte("\r\n"))
	user = append(user, "\r\n"...)
	if err := os.WriteFile(path, user, 0o600); err != nil {
		t.Fatal(err)
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// plandash's hooks are told from the user's by the executable's name.
	bin := filepath.Join(t.TempDir(), "plandash")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	opts := InstallOptions{Command: bin}
	rep, err := Install(path, opts)
	if err != nil || !rep.Changed {
		t.Fatalf("install: %+v %v", rep, err)
	}
	merged, _ := os.ReadFile(path)
	if !bytes.Contains(merged, []byte("\r\n\t\"hooks\": {\r\n\t\t\""+EventAfterAgent+"\": [\r\n")) ||
		!bytes.Contains(merged, []byte("\r\n\t\t\""+EventSessionStart+"\": [\r\n\t\t\t{\r\n\t\t\t\t\"hooks\": [")) {
		t.Errorf("the merged file does not keep the user's layout:\n%q", merged)
	}
	if _, err := Uninstall(path, "", ""); err != nil {
		t.Fatal(err)
	}
	if back, _ := os.ReadFile(path); !bytes.Equal(back, user) {
		t.Fatalf("uninstall did not give the user's file back:\n%q\nwant\n%q", back, user)
	}
	if _, err := Install(path, opts); err != nil {
		t.Fatal(err)
	}

	srv.Script(agenttest.Turn{Text: "All done."})
	res := cli.Prompt(2*time.Minute, "say done", "-m", geminiModel)
	if res.Err != nil {
		t.Fatalf("gemini -p: %v\nstdout: %s\nstderr: %s", res.Err, res.Stdout, res.Stderr)
	}
	if b, err := os.ReadFile(rec); err != nil || !strings.Contains(string(b), EventAfterAgent) {
		t.Errorf("the user's own hook did not run: %v %s", err, b)
	}
	mu.Lock()
	got := strings.Join(events, ",")
	mu.Unlock()
	for _, ev := range []string{EventSessionStart, EventBeforeAgent, EventAfterAgent} {
		if !strings.Contains(got, ev) {
			t.Errorf("plandash's %s hook did not run; it saw %s", ev, got)
		}
	}

	if rep, err := Uninstall(path, "", ""); err != nil || !rep.Changed {
		t.Fatalf("uninstall after the run: %+v %v", rep, err)
	}
	if back, _ := os.ReadFile(path); bytes.Contains(back, []byte("hook gemini")) || !bytes.Contains(back, []byte("user-hook.jsonl")) {
		t.Errorf("after the run, uninstall left:\n%s", back)
	}
}
