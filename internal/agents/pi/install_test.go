package pi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExtensionConfigBakedIn(t *testing.T) {
	if !strings.Contains(extensionSource, configLine) {
		t.Fatal("the embedded extension lost its config line; Install could not bake in the server")
	}
	if !strings.HasPrefix(extensionSource, ExtensionMarker) {
		t.Fatal("the embedded extension does not start with its marker; Uninstall would refuse it")
	}
	got := string(Extension(Options{Server: "http://box:7420", TokenFile: "/t/tok"}))
	if !strings.Contains(got, `= {"server":"http://box:7420","tokenFile":"/t/tok"}; // plandash:config`) {
		t.Errorf("config not baked in:\n%s", got[:400])
	}
}

func TestInstallUninstall(t *testing.T) {
	home := t.TempDir()
	dir := ExtensionDir("", func(k string) string { return map[string]string{"HOME": home}[k] })
	if want := filepath.Join(home, ".pi", "agent", "extensions"); dir != want {
		t.Fatalf("ExtensionDir = %s, want %s", dir, want)
	}
	steps := []struct {
		opts Options
		want string
	}{
		{Options{}, "created"},
		{Options{}, "unchanged"},
		{Options{Server: "http://other:1"}, "updated"},
	}
	for _, s := range steps {
		rep, err := Install(dir, s.opts)
		if err != nil || rep.Action != s.want {
			t.Fatalf("Install(%+v) = %+v, %v; want %s", s.opts, rep, err, s.want)
		}
	}
	rep, err := Uninstall(dir, "")
	if err != nil || rep.Action != "removed" {
		t.Fatalf("Uninstall = %+v, %v", rep, err)
	}
	if rep, err := Uninstall(dir, ""); err != nil || rep.Action != "absent" {
		t.Fatalf("second Uninstall = %+v, %v", rep, err)
	}
}

func TestInstallLeavesOthersAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ExtensionFile)
	mine := []byte("// my own plandash.ts\n")
	if err := os.WriteFile(path, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(dir, Options{}); err == nil || !strings.Contains(err.Error(), "not plandash's extension") {
		t.Errorf("Install over a foreign file: %v", err)
	}
	if _, err := Uninstall(dir, ""); err == nil {
		t.Error("Uninstall removed a foreign file")
	}
	if b, _ := os.ReadFile(path); string(b) != string(mine) {
		t.Errorf("foreign file changed: %q", b)
	}
}

func TestProjectInstallStaysInside(t *testing.T) {
	project := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".pi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(project, ".pi", "extensions")); err != nil {
		t.Fatal(err)
	}
	_, err := Install(ExtensionDir(project, os.Getenv), Options{Root: project})
	if err == nil {
		t.Fatal("Install followed a symlink out of the project")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files written outside the project: %v", entries)
	}
}
