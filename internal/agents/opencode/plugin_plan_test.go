package opencode

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPluginSendsPlan runs the baked plugin in node against a real HTTP server: for plan_exit's
// question it sends the plan file's text (read where OpenCode runs, relative to the worktree),
// so the server reads no file the event names; a FIFO in its place neither hangs the plugin
// nor is sent.
func TestPluginSendsPlan(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	worktree := t.TempDir()
	if err := os.MkdirAll(filepath.Join(worktree, ".opencode", "plans"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(worktree, ".opencode", "plans", "p.md"), []byte("# Parser\n\n1. Lex\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(worktree, ".opencode", "plans", "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan HookEvent, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		ev, err := DecodeHook(b)
		if err != nil {
			t.Errorf("the plugin posted %s: %v", b, err)
		}
		got <- ev
	}))
	defer srv.Close()
	dir := t.TempDir()
	plugin := filepath.Join(dir, "plandash.mjs")
	if err := os.WriteFile(plugin, Plugin(PluginOptions{Server: srv.URL}), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ file, want string }{{".opencode/plans/p.md", "# Parser\n\n1. Lex\n"}, {".opencode/plans/fifo.md", ""}} {
		ev, _ := json.Marshal(map[string]any{"type": "question.asked", "properties": map[string]any{"id": "que_1", "sessionID": "ses_1",
			"questions": []any{map[string]any{"header": "Build Agent", "question": "Plan at " + tt.file + " is complete. Would you like to switch to the build agent and start implementing?"}}}})
		script := filepath.Join(dir, "run.mjs")
		js := `import { PlandashPlugin } from "./plandash.mjs";
const hooks = await PlandashPlugin({ client: null, directory: ` + jsString(worktree) + `, worktree: ` + jsString(worktree) + `, serverUrl: null });
hooks.event({ event: ` + string(ev) + ` });
setTimeout(() => process.exit(0), 1500);
`
		if err := os.WriteFile(script, []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(node, script)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: node: %v\n%s", tt.file, err, out)
		}
		select {
		case ev := <-got:
			if ev.Plan != tt.want || (tt.want != "" && ev.PlanPath != filepath.Join(worktree, tt.file)) {
				t.Errorf("%s: the plugin sent plan %q from %q", tt.file, ev.Plan, ev.PlanPath)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the plugin posted nothing", tt.file)
		}
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return strings.TrimSpace(string(b))
}
