package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallOpenCodeCommand: `plandash install opencode` writes the plugin into the user's
// or the project's plugin directory with the server and the data directory's token file baked
// in, says what it did, changes nothing the second time, and --uninstall removes only its file.
func TestInstallOpenCodeCommand(t *testing.T) {
	home, project, data := t.TempDir(), t.TempDir(), t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	install := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(context.Background(), append([]string{"install", "opencode"}, args...), env, nil, &out, &errOut); err != nil {
			t.Fatalf("install %v: %v %s", args, err, errOut.String())
		}
		return out.String()
	}
	for _, tt := range []struct {
		name  string
		args  []string
		path  string
		token string
	}{
		{"user", nil, filepath.Join(home, ".config", "opencode", "plugins", "plandash.js"), filepath.Join(home, ".local", "share", "plandash", "token")},
		{"project", []string{"--project", project, "--server", "http://127.0.0.1:7999", "--data", data},
			filepath.Join(project, ".opencode", "plugins", "plandash.js"), filepath.Join(data, "token")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if out := install(tt.args...); !strings.Contains(out, tt.path+": created") {
				t.Errorf("first install said %q", out)
			}
			b, err := os.ReadFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"tokenFile":"`+tt.token+`"`) || !strings.Contains(string(b), "export const PlandashPlugin") {
				t.Errorf("plugin config line: %s", strings.SplitN(string(b), "const CONFIG", 2)[1][:120])
			}
			if len(tt.args) > 0 && !strings.Contains(string(b), `"server":"http://127.0.0.1:7999"`) {
				t.Error("--server not baked in")
			}
			if out := install(tt.args...); !strings.Contains(out, "already up to date") {
				t.Errorf("second install said %q", out)
			}
			mine := filepath.Join(filepath.Dir(tt.path), "mine.js")
			if err := os.WriteFile(mine, []byte("export const Mine = async () => ({})\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if out := install(append(tt.args, "--uninstall")...); !strings.Contains(out, "removed") {
				t.Errorf("uninstall said %q", out)
			}
			if _, err := os.Stat(tt.path); !os.IsNotExist(err) {
				t.Errorf("plugin still there: %v", err)
			}
			if _, err := os.Stat(mine); err != nil {
				t.Errorf("uninstall touched another plugin: %v", err)
			}
		})
	}
}
