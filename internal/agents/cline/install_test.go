package cline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallUninstall(t *testing.T) {
	home := t.TempDir()
	dir := HooksDir("", func(k string) string { return map[string]string{"HOME": home}[k] })
	if want := filepath.Join(home, ".cline", "hooks"); dir != want {
		t.Fatalf("HooksDir = %s, want %s", dir, want)
	}
	// A user's own hook for the same event stays, and runs beside plandash's.
	mine := filepath.Join(dir, "PreToolUse")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("#!/bin/sh\necho mine\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := Install(dir, InstallOptions{Command: "/opt/plan dash/plandash", Server: "http://box:7420"})
	if err != nil || len(rep.Changed) != len(hookEventNames()) {
		t.Fatalf("Install = %+v, %v", rep, err)
	}
	for _, name := range hookEventNames() {
		path := filepath.Join(dir, name+HookExt)
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != 0o755 {
			t.Fatalf("%s: %v %v", path, st, err)
		}
		b, _ := os.ReadFile(path)
		if !strings.Contains(string(b), `exec '/opt/plan dash/plandash' hook cline --server http://box:7420`) {
			t.Errorf("%s:\n%s", path, b)
		}
	}
	if rep, err := Install(dir, InstallOptions{Command: "/opt/plan dash/plandash", Server: "http://box:7420"}); err != nil || len(rep.Changed) != 0 {
		t.Errorf("second Install = %+v, %v; want nothing changed", rep, err)
	}
	rep, err = Uninstall(dir, "")
	if err != nil || len(rep.Changed) != len(hookEventNames()) {
		t.Fatalf("Uninstall = %+v, %v", rep, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "PreToolUse" {
		t.Errorf("left after uninstall: %v; want only the user's own hook", entries)
	}
}

func TestInstallRefusesForeignFile(t *testing.T) {
	dir := t.TempDir()
	theirs := filepath.Join(dir, "TaskStart"+HookExt)
	if err := os.WriteFile(theirs, []byte("#!/bin/sh\necho theirs\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(dir, InstallOptions{}); err == nil || !strings.Contains(err.Error(), "not plandash's hook") {
		t.Fatalf("Install over a foreign file: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("Install wrote files before refusing: %v", entries)
	}
	if rep, err := Uninstall(dir, ""); err != nil || len(rep.Changed) != 0 {
		t.Errorf("Uninstall = %+v, %v; want the foreign file left", rep, err)
	}
}

func TestProjectInstallStaysInside(t *testing.T) {
	project, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".cline"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(project, ".cline", "hooks")); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(HooksDir(project, os.Getenv), InstallOptions{Root: project}); err == nil {
		t.Fatal("Install followed a symlink out of the project")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files written outside the project: %v", entries)
	}
}
