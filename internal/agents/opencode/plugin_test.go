package opencode

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginDir: the directories OpenCode 1.18 globs for plugin files.
func TestPluginDir(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, tt := range []struct {
		project string
		getenv  func(string) string
		want    string
	}{
		{"/w/p", env("HOME", "/h"), "/w/p/.opencode/plugins"},
		{"", env("HOME", "/h"), "/h/.config/opencode/plugins"},
		{"", env("HOME", "/h", "XDG_CONFIG_HOME", "/x"), "/x/opencode/plugins"},
	} {
		if got := PluginDir(tt.project, tt.getenv); got != tt.want {
			t.Errorf("PluginDir(%q) = %q, want %q", tt.project, got, tt.want)
		}
	}
}

// TestInstallPlugin: install creates, is idempotent, updates when the options change, refuses
// a file plandash did not write; uninstall removes only plandash's file.
func TestInstallPlugin(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".opencode", "plugins")
	opts := PluginOptions{Server: "http://127.0.0.1:7420", TokenFile: "/data/token"}
	steps := []struct {
		name   string
		do     func() (InstallReport, error)
		action string
	}{
		{"create", func() (InstallReport, error) { return InstallPlugin(dir, opts) }, "created"},
		{"again", func() (InstallReport, error) { return InstallPlugin(dir, opts) }, "unchanged"},
		{"new server", func() (InstallReport, error) {
			return InstallPlugin(dir, PluginOptions{Server: "http://10.0.0.2:7420", TokenFile: "/data/token"})
		}, "updated"},
		{"uninstall", func() (InstallReport, error) { return UninstallPlugin(dir, "") }, "removed"},
		{"uninstall again", func() (InstallReport, error) { return UninstallPlugin(dir, "") }, "absent"},
	}
	for _, st := range steps {
		rep, err := st.do()
		if err != nil || rep.Action != st.action || rep.Changed != (st.action != "unchanged" && st.action != "absent") {
			t.Fatalf("%s: %+v, %v; want %s", st.name, rep, err, st.action)
		}
		if !strings.Contains(rep.String(), rep.Path) {
			t.Errorf("%s: report %q", st.name, rep)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Errorf("left behind %v (%v)", entries, err)
	}
	foreign := filepath.Join(dir, PluginFile)
	if err := os.WriteFile(foreign, []byte("export const Mine = async () => ({})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallPlugin(dir, opts); err == nil {
		t.Error("install overwrote a file plandash did not write")
	}
	if _, err := UninstallPlugin(dir, ""); err == nil {
		t.Error("uninstall removed a file plandash did not write")
	}
	if b, err := os.ReadFile(foreign); err != nil || !strings.Contains(string(b), "Mine") {
		t.Errorf("foreign file changed: %q %v", b, err)
	}
}

// TestPluginSource: the baked plugin starts with the marker, carries the options as a JS
// object literal, and is valid JavaScript (checked by node when it is installed).
func TestPluginSource(t *testing.T) {
	src := Plugin(PluginOptions{Server: `http://h:1/"x"`, TokenFile: "/d/token"})
	if !strings.HasPrefix(string(src), PluginMarker) {
		t.Error("no marker")
	}
	if !strings.Contains(string(src), `const CONFIG = {"server":"http://h:1/\"x\"","tokenFile":"/d/token"};`) {
		t.Errorf("config not baked in:\n%s", src)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	path := filepath.Join(t.TempDir(), "plandash.mjs")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(node, "--check", path).CombinedOutput(); err != nil {
		t.Errorf("node --check: %v\n%s", err, out)
	}
}
