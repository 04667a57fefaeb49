package sharedplans

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/plandash/plandash/internal/files"
)

func TestAllowedRoots(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "work")
	outside := filepath.Join(base, "secret")
	for _, d := range []string{filepath.Join(root, "docs"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWriteText(t, filepath.Join(root, "docs", "in.md"), "inside")
	mustWriteText(t, filepath.Join(outside, "out.md"), "secret")
	mustLink(t, outside, filepath.Join(root, "escape"))                           // directory link leaving the root
	mustLink(t, filepath.Join(outside, "out.md"), filepath.Join(root, "leak.md")) // file link leaving the root
	mustLink(t, filepath.Join(root, "docs"), filepath.Join(root, "alias"))        // link staying inside
	// The root itself reached through a symlink must work too.
	rootLink := filepath.Join(base, "link-to-work")
	mustLink(t, root, rootLink)

	policy, err := files.NewRoots(rootLink)
	if err != nil {
		t.Fatal(err)
	}
	s := newTestStore(t)
	mustWrite(t, s, "p", "plan body")
	ts := NewToolset(s, policy)
	ctx := context.Background()

	reads := []struct {
		path string
		want string // content, or the error text
		deny bool
	}{
		{"docs/in.md", "inside", false},
		{filepath.Join(root, "docs/in.md"), "inside", false},
		{filepath.Join(rootLink, "docs/in.md"), "inside", false},
		{"alias/in.md", "inside", false},
		{"../secret/out.md", `path "../secret/out.md" is outside the allowed directories`, true},
		{filepath.Join(outside, "out.md"), `path "` + filepath.Join(outside, "out.md") + `" is outside the allowed directories`, true},
		{"docs/../../secret/out.md", `path "docs/../../secret/out.md" is outside the allowed directories`, true},
		{"escape/out.md", `path "escape/out.md" escapes the allowed directories`, true},
		{"leak.md", `path "leak.md" escapes the allowed directories`, true},
		{"docs/missing.md", `file "docs/missing.md" does not exist`, false},
	}
	for _, r := range reads {
		p, err := ts.UpdatePlanFromFile(ctx, UpdatePlanFromFileArgs{Name: "q", Path: r.path})
		switch {
		case err == nil && p.Content != r.want:
			t.Errorf("read %s: content %q, want %q", r.path, p.Content, r.want)
		case err != nil && (err.Error() != r.want || errors.Is(err, files.ErrDenied) != r.deny):
			t.Errorf("read %s: %v (denied=%v), want %q (denied=%v)", r.path, err, errors.Is(err, files.ErrDenied), r.want, r.deny)
		}
	}

	writes := []struct {
		path string
		deny string
	}{
		{"out/new/p.md", ""},
		{"alias/p.md", ""},
		{"../secret/p.md", `path "../secret/p.md" is outside the allowed directories`},
		{"escape/p.md", `path "escape/p.md" escapes the allowed directories`},
		{"escape/sub/p.md", `path "escape/sub/p.md" escapes the allowed directories`},
	}
	for _, w := range writes {
		_, err := ts.ExportPlanToFile(ctx, ExportPlanToFileArgs{Name: "p", Path: w.path})
		if w.deny == "" {
			if err != nil {
				t.Errorf("write %s: %v", w.path, err)
			} else if got := readText(t, filepath.Join(root, w.path)); got != "plan body" {
				t.Errorf("write %s: %q", w.path, got)
			}
			continue
		}
		if err == nil || err.Error() != w.deny || !errors.Is(err, files.ErrDenied) {
			t.Errorf("write %s: %v, want %q", w.path, err, w.deny)
		}
	}
	// A symlink at the destination is replaced, never written through.
	if _, err := ts.ExportPlanToFile(ctx, ExportPlanToFileArgs{Name: "p", Path: "leak.md"}); err != nil {
		t.Fatalf("export over a link: %v", err)
	}
	if got := readText(t, filepath.Join(outside, "out.md")); got != "secret" {
		t.Errorf("the link target was written: %q", got)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("files appeared outside the root: %v", entries)
	}
}

func TestNewAllowedRootsRejectsBadRoots(t *testing.T) {
	if _, err := files.NewRoots(); err == nil {
		t.Error("no roots")
	}
	if _, err := files.NewRoots(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing root")
	}
	f := filepath.Join(t.TempDir(), "file")
	mustWriteText(t, f, "")
	if _, err := files.NewRoots(f); err == nil {
		t.Error("file as root")
	}
}

func TestWorkingDir(t *testing.T) {
	tests := []struct {
		wd   files.WorkingDir
		in   string
		want string
	}{
		{"/w", "a/b.md", "/w/a/b.md"},
		{"/w", "../x", "/x"},
		{"/w", "/abs/x", "/abs/x"},
		{"", "rel/x", "rel/x"},
	}
	for _, tt := range tests {
		loc, err := tt.wd.Resolve(tt.in)
		if err != nil || loc.Root != "" || loc.Name != filepath.FromSlash(tt.want) {
			t.Errorf("%q.Resolve(%q) = %+v %v, want %s", tt.wd, tt.in, loc, err, tt.want)
		}
	}
}

func mustWriteText(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}
