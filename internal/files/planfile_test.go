package files

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestPlanDirsRead: only .md files under the configured directories are read; everything an
// attacker could name instead (a token, a file outside, a symlink out, a FIFO, a directory
// that does not exist yet) is refused with a message naming the path.
func TestPlanDirsRead(t *testing.T) {
	base := t.TempDir()
	plans, outside := filepath.Join(base, "plans"), filepath.Join(base, "outside")
	mustWrite(t, filepath.Join(plans, "ok.md"), "# ok")
	mustWrite(t, filepath.Join(plans, "token"), "SECRET")
	mustWrite(t, filepath.Join(outside, "secret.md"), "SECRET")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(plans, "leak.md")); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := syscall.Mkfifo(filepath.Join(plans, "fifo.md"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dirs := PlanDirs{filepath.Join(base, "not-yet"), plans, "relative"}
	cases := []struct {
		path string
		err  error
	}{
		{filepath.Join(plans, "ok.md"), nil},
		{filepath.Join(plans, "token"), ErrNotPlan},
		{filepath.Join(outside, "secret.md"), ErrDenied},
		{filepath.Join(plans, "leak.md"), ErrDenied},
		{filepath.Join(plans, "..", "outside", "secret.md"), ErrDenied},
		{filepath.Join(plans, "missing.md"), fs.ErrNotExist},
		{"ok.md", ErrDenied},
	}
	if runtime.GOOS != "windows" {
		cases = append(cases, struct {
			path string
			err  error
		}{filepath.Join(plans, "fifo.md"), ErrNotRegular})
	}
	for _, c := range cases {
		b, err := dirs.Read(c.path, 1<<10)
		if c.err == nil {
			if err != nil || string(b) != "# ok" {
				t.Errorf("Read(%s) = %q, %v", c.path, b, err)
			}
			continue
		}
		if !errors.Is(err, c.err) || b != nil {
			t.Errorf("Read(%s) = %q, %v; want %v", c.path, b, err, c.err)
		}
		if !strings.HasPrefix(err.Error(), "plan file not shown: ") || !strings.Contains(err.Error(), filepath.Base(c.path)) {
			t.Errorf("Read(%s): unclear refusal %q", c.path, err)
		}
	}
	if _, err := (PlanDirs{filepath.Join(base, "not-yet")}).Read(filepath.Join(base, "not-yet", "p.md"), 10); !errors.Is(err, ErrDenied) {
		t.Errorf("no existing directory: %v", err)
	}
	// A directory made after start is read from at once.
	mustWrite(t, filepath.Join(base, "not-yet", "p.md"), "# later")
	if b, err := dirs.Read(filepath.Join(base, "not-yet", "p.md"), 10); err != nil || string(b) != "# later" {
		t.Errorf("a directory made later: %q, %v", b, err)
	}
}

// FuzzPlanDirsRead: whatever path an event names, a read returns the one plan inside the
// directory or nothing: never the secret beside it, outside it or behind a symlink.
func FuzzPlanDirsRead(f *testing.F) {
	base := f.TempDir()
	plans, outside := filepath.Join(base, "plans"), filepath.Join(base, "outside")
	mustWriteF := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	mustWriteF(filepath.Join(plans, "sub", "ok.md"), "PLAN")
	mustWriteF(filepath.Join(plans, "token"), "SECRET")
	mustWriteF(filepath.Join(outside, "secret.md"), "SECRET")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(plans, "leak.md")); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(plans, "out")); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"sub/ok.md", "token", "leak.md", "out/secret.md", "../outside/secret.md", "sub/../../outside/secret.md", "/etc/passwd", ""} {
		f.Add(s)
	}
	dirs := PlanDirs{plans}
	f.Fuzz(func(t *testing.T, name string) {
		for _, p := range []string{name, filepath.Join(plans, name)} {
			b, err := dirs.Read(p, 1<<10)
			if err == nil && string(b) != "PLAN" {
				t.Fatalf("Read(%q) = %q", p, b)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "plan file not shown: ") {
				t.Fatalf("Read(%q): refusal %q does not say what", p, err)
			}
		}
	})
}
