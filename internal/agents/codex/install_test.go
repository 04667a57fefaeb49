package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

func TestInstall(t *testing.T) {
	user := `{
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]
  },
  "other": 1
}
`
	tests := []struct {
		name, before string
		opts         InstallOptions
		check        func(t *testing.T, after string)
		wantErr      string
	}{
		{name: "fresh file", opts: InstallOptions{}, check: func(t *testing.T, after string) {
			if !strings.Contains(after, `"command": "plandash hook codex"`) || !strings.Contains(after, `"timeout": 86400`) {
				t.Errorf("%s", after)
			}
		}},
		{name: "keeps the user's hooks", before: user, opts: InstallOptions{Command: "/opt/my tools/plandash", Server: "http://h:7420"}, check: func(t *testing.T, after string) {
			for _, want := range []string{"notify-send done", `"matcher": "Bash"`, `"other": 1`, `"command": "'/opt/my tools/plandash' hook codex --server http://h:7420"`} {
				if !strings.Contains(after, want) {
					t.Errorf("lost %s:\n%s", want, after)
				}
			}
			if strings.Index(after, "notify-send") > strings.Index(after, "plandash") {
				t.Errorf("plandash's hook went before the user's:\n%s", after)
			}
		}},
		{name: "invalid JSON names line and column", before: "{\n  \"hooks\": {,\n}", wantErr: "line 2, column 13"},
		{name: "not an object", before: `[]`, wantErr: "JSON object"},
		{name: "Stop not an array", before: `{"hooks":{"Stop":{}}}`, wantErr: "not an array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".codex", "hooks.json")
			if tc.before != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Install(path, tc.opts)
			if tc.wantErr != "" {
				b, _ := os.ReadFile(path)
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || string(b) != tc.before {
					t.Errorf("err %v; file %q", err, b)
				}
				return
			}
			if err != nil || !rep.Changed || rep.Created != (tc.before == "") {
				t.Fatalf("%+v %v", rep, err)
			}
			after, err := os.ReadFile(path)
			if err != nil || !json.Valid(after) {
				t.Fatalf("%v %s", err, after)
			}
			tc.check(t, string(after))
			if fi, err := os.Stat(path); err != nil || tc.before != "" && fi.Mode().Perm() != 0o600 {
				t.Errorf("mode not kept: %v %v", fi.Mode(), err)
			}
			// Idempotent, and a changed option replaces plandash's entry only.
			if rep, err := Install(path, tc.opts); err != nil || rep.Changed {
				t.Errorf("second install: %+v %v", rep, err)
			}
			opts := tc.opts
			opts.Timeout = 60
			if _, err := Install(path, opts); err != nil {
				t.Fatal(err)
			}
			again, _ := os.ReadFile(path)
			// Compacted: plandash's groups take the layout of the user's around them.
			flat := settingsfile.Compact(again)
			if strings.Count(flat, "hook codex") != len(hookEvents) || strings.Count(flat, `"timeout":60`) != 2 ||
				strings.Count(flat, `"matcher":"request_user_input"`) != 2 {
				t.Errorf("update:\n%s", again)
			}
			if rep, err := Uninstall(path, ""); err != nil || !rep.Changed {
				t.Fatalf("uninstall %+v %v", rep, err)
			}
			gone, _ := os.ReadFile(path)
			if strings.Contains(string(gone), "hook codex") || tc.before != "" && !strings.Contains(string(gone), "notify-send done") {
				t.Errorf("after uninstall:\n%s", gone)
			}
		})
	}
}
