package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// userSettings is a settings.json with the user's own keys and hooks, some on the same events.
const userSettings = `{
  "model": "sonnet",
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
  },
  "env": {"FOO": "1"}
}
`

func writeFile(t *testing.T, path, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInstall(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	writeFile(t, path, userSettings, 0o600)
	opts := InstallOptions{Command: "/usr/local/bin/plandash", Server: "http://127.0.0.1:7420", Gate: true}
	rep, err := Install(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantAdded := []string{EventSessionStart, EventUserPromptSubmit, EventPreToolUse, EventPermissionRequest, EventTaskCreated, EventTaskCompleted, EventNotification, EventSessionEnd}
	if !rep.Changed || rep.Created || !reflect.DeepEqual(rep.Updated, []string(nil)) || len(rep.Added) != len(wantAdded)+2 {
		t.Errorf("report: %+v", rep)
	}
	got := readFile(t, path)
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
				Async         bool
				Timeout       int
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(got), &s); err != nil {
		t.Fatal(err)
	}
	post := s.Hooks[EventPostToolUse]
	if len(post) != 2 || post[0].Hooks[0].Command != "prettier --write" || post[1].Matcher != planTools ||
		post[1].Hooks[0].Command != "/usr/local/bin/plandash hook claude --server http://127.0.0.1:7420" || !post[1].Hooks[0].Async {
		t.Errorf("PostToolUse: %+v", post)
	}
	gate := s.Hooks[EventPermissionRequest]
	if len(gate) != 1 || gate[0].Matcher != ToolExitPlanMode || gate[0].Hooks[0].Async || gate[0].Hooks[0].Timeout != 86400 {
		t.Errorf("gate: %+v", gate)
	}
	// Questions wait for plandash's answer: a hook of their own, not async.
	pre := s.Hooks[EventPreToolUse]
	if n := len(pre); n < 2 || pre[n-2].Matcher != planTools || !pre[n-2].Hooks[0].Async ||
		pre[n-1].Matcher != ToolAskUserQuestion || pre[n-1].Hooks[0].Async || pre[n-1].Hooks[0].Timeout != 86400 {
		t.Errorf("PreToolUse: %+v", pre)
	}
	// The user's keys keep their order, hooks stays where it was.
	if i, j, k := strings.Index(got, `"model"`), strings.Index(got, `"hooks"`), strings.Index(got, `"env"`); !(i < j && j < k) {
		t.Errorf("key order lost:\n%s", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v %v", fi.Mode(), err)
	}

	again, err := Install(path, opts)
	if err != nil || again.Changed || readFile(t, path) != got || !strings.Contains(again.String(), "nothing changed") {
		t.Errorf("second run: %+v %v", again, err)
	}

	opts.Gate = false
	less, err := Install(path, opts)
	// The question hook goes with the gate: PreToolUse keeps only the capture.
	if err != nil || !reflect.DeepEqual(less.Removed, []string{EventPermissionRequest}) || len(less.Added) != 0 || !reflect.DeepEqual(less.Updated, []string{EventPreToolUse}) {
		t.Errorf("without the gate: %+v %v", less, err)
	}

	rm, err := Uninstall(path, "")
	if err != nil || !rm.Changed {
		t.Fatalf("uninstall: %+v %v", rm, err)
	}
	var before, after any
	if err := json.Unmarshal([]byte(userSettings), &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &after); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("uninstall did not restore the user's settings:\n%s", readFile(t, path))
	}
	if rm2, err := Uninstall(path, ""); err != nil || rm2.Changed {
		t.Errorf("second uninstall: %+v %v", rm2, err)
	}
}

func TestInstallIdempotentWithOddPaths(t *testing.T) {
	for _, bin := range []string{"/opt/my tools/plandash", "/opt/it's/plandash", "plandash"} {
		opts := InstallOptions{Command: bin, Data: "/a b", Gate: true}
		out, rep, err := mergeHooks(nil, opts)
		if err != nil || !rep.Changed {
			t.Fatalf("%s: %+v %v", bin, rep, err)
		}
		if _, rep, err := mergeHooks(out, opts); err != nil || rep.Changed {
			t.Errorf("%s: second run changed %+v %v", bin, rep, err)
		}
	}
}

func TestInstallCreatesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", ".claude", "settings.json")
	rep, err := Install(path, InstallOptions{Data: "/data dir"})
	if err != nil || !rep.Created || !rep.Changed || !strings.Contains(rep.String(), "created") {
		t.Fatalf("%+v %v", rep, err)
	}
	got := readFile(t, path)
	if !json.Valid([]byte(got)) || !strings.Contains(got, `plandash hook claude --data '/data dir'`) || strings.Contains(got, EventPermissionRequest) {
		t.Errorf("%s", got)
	}
}

func TestInstallRefusesBrokenSettings(t *testing.T) {
	tests := []struct{ name, body, say string }{
		{"syntax", "{\n  \"model\": \"x\",\n  \"hooks\": {,}\n}\n", "line 3, column 13"},
		{"not an object", `["x"]`, "JSON object"},
		{"hooks not an object", `{"hooks": []}`, `"hooks" is not an object`},
		{"event not an array", `{"hooks": {"Stop": {}}}`, "hooks.Stop is not an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			writeFile(t, path, tt.body, 0o644)
			_, err := Install(path, InstallOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.say) || !strings.Contains(err.Error(), path) {
				t.Errorf("got %v, want %q", err, tt.say)
			}
			if readFile(t, path) != tt.body {
				t.Error("the file was changed")
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("left files behind: %v", entries)
			}
		})
	}
}

func TestUninstallKeepsMixedGroups(t *testing.T) {
	in := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"},{"type":"command","command":"plandash hook claude","async":true}]}]}}`
	out, rep, err := removeHooks([]byte(in))
	if err != nil || !reflect.DeepEqual(rep.Removed, []string{EventStop}) {
		t.Fatalf("%+v %v", rep, err)
	}
	if strings.Contains(string(out), "plandash") || !strings.Contains(string(out), "say done") {
		t.Errorf("%s", out)
	}
}

// TestHookCommand: every option reaches the command line, quoted for the shell, and the
// command stays recognisable as plandash's, so a later install with another token replaces it.
func TestHookCommand(t *testing.T) {
	tests := []struct {
		opts InstallOptions
		want string
	}{
		{InstallOptions{}, "plandash hook claude"},
		{InstallOptions{Command: "/bin/plandash", Server: "http://h:1", Data: "/d", Token: "tok-1"},
			"/bin/plandash hook claude --server http://h:1 --data /d --token tok-1"},
		{InstallOptions{Token: "a b'c"}, `plandash hook claude --token 'a b'\''c'`},
	}
	for _, tt := range tests {
		got := hookCommand(tt.opts)
		if got != tt.want {
			t.Errorf("%+v: got %s, want %s", tt.opts, got, tt.want)
		}
		hook, err := json.Marshal(map[string]string{"type": "command", "command": got})
		if err != nil {
			t.Fatal(err)
		}
		if !(settingsfile.Hooks{Agent: "claude"}).IsOurs(hook) {
			t.Errorf("%s is not recognised as plandash's", got)
		}
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	if _, err := Install(path, InstallOptions{Token: "old"}); err != nil {
		t.Fatal(err)
	}
	rep, err := Install(path, InstallOptions{Token: "new"})
	if err != nil || len(rep.Updated) == 0 || len(rep.Added) != 0 {
		t.Fatalf("reinstall with a new token: %+v %v", rep, err)
	}
	if got := readFile(t, path); strings.Contains(got, "old") || !strings.Contains(got, "--token new") {
		t.Errorf("settings after the new token:\n%s", got)
	}
}
