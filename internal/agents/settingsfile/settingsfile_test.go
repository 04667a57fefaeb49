//go:build unix

package settingsfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUserSettings: without a root (the user's own settings) a FIFO, a read-only file and an
// oversize file are refused as in a project, a symlinked file is followed (dotfile managers
// link settings), and a write keeps the file's mode and leaves no temp file.
func TestUserSettings(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read("", fifo); err == nil || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
		t.Errorf("a FIFO: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, MaxBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read("", big); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a file over the limit: %v", err)
	}
	ro := filepath.Join(dir, "ro.json")
	if err := os.WriteFile(ro, []byte("{}"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := Write("", ro, []byte(`{"x":1}`)); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("a read-only file: %v", err)
	}
	if err := Remove("", ro); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("removing a read-only file: %v", err)
	}

	real := filepath.Join(dir, "dotfiles", "settings.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	f, err := Read("", link)
	if err != nil || !f.Exists || string(f.Data) != `{"a":1}` || f.Mode != 0o600 {
		t.Fatalf("Read through a link = %+v, %v", f, err)
	}
	if f, err := Read("", filepath.Join(dir, "none", "x.json")); err != nil || f.Exists || f.Mode != 0o644 {
		t.Fatalf("Read of a missing file = %+v, %v", f, err)
	}
	target := filepath.Join(dir, "new", "settings.json")
	if err := Write("", target, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write("", target, []byte(`{"b":2}`)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after a rewrite: %v %v", fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(target)); len(entries) != 1 {
		t.Errorf("%d entries beside the file, want none: a temp file stayed", len(entries)-1)
	}
}

// TestProjectConfinement: with a root, a path outside it and a symlink out are refused, and a
// symlink that stays inside is followed.
func TestProjectConfinement(t *testing.T) {
	project, outside := t.TempDir(), t.TempDir()
	if err := Write(project, filepath.Join(outside, "x.json"), []byte("{}")); err == nil || !strings.Contains(err.Error(), "outside the project") {
		t.Errorf("a path outside: %v", err)
	}
	if err := os.Symlink(outside, filepath.Join(project, ".claude")); err != nil {
		t.Fatal(err)
	}
	if err := Write(project, filepath.Join(project, ".claude", "settings.json"), []byte("{}")); err == nil || !strings.Contains(err.Error(), "leads out of the project") {
		t.Errorf("a directory linked out: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("%d files written outside the project", len(entries))
	}
	if err := os.MkdirAll(filepath.Join(project, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("shared", filepath.Join(project, ".gemini")); err != nil {
		t.Fatal(err)
	}
	if err := Write(project, filepath.Join(project, ".gemini", "settings.json"), []byte("{}")); err != nil {
		t.Errorf("a link inside the project: %v", err)
	}
	if _, err := os.Stat(filepath.Join(project, "shared", "settings.json")); err != nil {
		t.Errorf("not written through the inside link: %v", err)
	}
}
