//go:build unix

package sharedplans

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/files"
)

// noHang fails the test instead of wedging the run if fn blocks (a FIFO opened without
// O_NONBLOCK would).
func noHang(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(watchTimeout):
		t.Fatal("operation hung")
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

func TestBadPlanFiles(t *testing.T) {
	outsideDir := t.TempDir()
	validElsewhere := filepath.Join(outsideDir, "valid.json")
	if err := os.WriteFile(validElsewhere, []byte(`{"content":"linked","revision":3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		make     func(t *testing.T, path string)
		readErr  string // "" means the read succeeds
		listWarn bool
	}{
		{"fifo", mkfifo, "plan file x.json is corrupt: not a regular file (e.g. a device or named pipe)", true},
		{"directory", func(t *testing.T, p string) { mustMkdir(t, p) }, "plan file x.json is corrupt: is a directory, not a plan file", false},
		// Links out of the plans directory are never followed (issue 25): whoever can write the
		// directory must not make plandash read, show or hang on anything outside it.
		{"symlink to a directory", func(t *testing.T, p string) { mustSymlink(t, outsideDir, p) }, "plan file x.json is corrupt: a symlink out of the plans directory, not followed", true},
		{"symlink to a device", func(t *testing.T, p string) { mustSymlink(t, "/dev/zero", p) }, "plan file x.json is corrupt: a symlink out of the plans directory, not followed", true},
		{"dangling symlink", func(t *testing.T, p string) { mustSymlink(t, filepath.Join(outsideDir, "nope"), p) }, "plan file x.json is corrupt: a symlink out of the plans directory, not followed", true},
		{"symlink to a plan elsewhere", func(t *testing.T, p string) { mustSymlink(t, validElsewhere, p) }, "plan file x.json is corrupt: a symlink out of the plans directory, not followed", true},
		{"symlink to a plan in the directory", func(t *testing.T, p string) {
			mustWriteFile(t, filepath.Join(filepath.Dir(p), "y.json"), `{"content":"linked","revision":3}`)
			mustSymlink(t, "y.json", p)
		}, "", false},
		{"huge file", func(t *testing.T, p string) {
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(MaxEncodedSize + 1); err != nil { // sparse: costs no disk
				t.Fatal(err)
			}
		}, "plan file x.json is corrupt: file exceeds 73400320 bytes", true},
		{"corrupt json", func(t *testing.T, p string) { mustWriteFile(t, p, `{"revision":"1"}`) },
			"plan file x.json is corrupt: json: cannot unmarshal string into Go struct field Plan.revision of type int", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t)
			mustMkdir(t, s.Dir())
			path := filepath.Join(s.Dir(), "x.json")
			tt.make(t, path)
			ctx := context.Background()
			noHang(t, func() {
				_, ok, err := s.Get(ctx, "x")
				switch {
				case tt.readErr == "" && err != nil:
					t.Errorf("get: %v", err)
				case tt.readErr != "" && (err == nil || err.Error() != tt.readErr || !errors.Is(err, ErrCorrupt)):
					t.Errorf("get: %v %v, want %q", ok, err, tt.readErr)
				}
				res, err := s.List(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got := len(res.Warnings) == 1; got != tt.listWarn {
					t.Errorf("list warnings %q, want warning: %v", res.Warnings, tt.listWarn)
				}
				if tt.readErr != "" {
					// A write must not go over an unreadable file.
					if _, err := s.Upsert(ctx, UpsertRequest{Name: "x", Content: strp("y")}); err == nil || err.Error() != tt.readErr {
						t.Errorf("write over it: %v", err)
					}
				}
			})
		})
	}
}

func TestDeleteRecoversUnreadablePlans(t *testing.T) {
	for _, mk := range []func(*testing.T, string){mkfifo, func(t *testing.T, p string) { mustWriteFile(t, p, "{") }} {
		s := newTestStore(t)
		mustMkdir(t, s.Dir())
		mk(t, filepath.Join(s.Dir(), "x.json"))
		noHang(t, func() {
			if ok, err := s.Delete(context.Background(), "x", nil); !ok || err != nil {
				t.Fatalf("unguarded delete: %v %v", ok, err)
			}
		})
		if p := mustWrite(t, s, "x", "fresh"); p.Revision != 1 {
			t.Errorf("revision after recovery %d", p.Revision)
		}
	}
}

func TestBadSourceFiles(t *testing.T) {
	scratch := t.TempDir()
	mkfifo(t, filepath.Join(scratch, "fifo"))
	mustSymlink(t, "/dev/zero", filepath.Join(scratch, "zero"))
	huge, err := os.Create(filepath.Join(scratch, "huge.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := huge.Truncate(MaxContentSize + 1); err != nil {
		t.Fatal(err)
	}
	huge.Close()
	mustWriteFile(t, filepath.Join(scratch, "exact.md"), strings.Repeat("a", MaxContentSize))
	ts := NewToolset(newTestStore(t), files.WorkingDir(scratch))
	tests := []struct{ path, want string }{
		{"fifo", `path "fifo" is not a regular file (e.g. a device or named pipe)`},
		{"zero", `path "zero" is not a regular file (e.g. a device or named pipe)`},
		{"huge.md", `file "huge.md" is too large (10485761 bytes; max 10485760)`},
		{"exact.md", ""},
	}
	for _, tt := range tests {
		noHang(t, func() {
			_, err := ts.UpdatePlanFromFile(context.Background(), UpdatePlanFromFileArgs{Name: "p", Path: tt.path})
			if (tt.want == "" && err != nil) || (tt.want != "" && (err == nil || err.Error() != tt.want)) {
				t.Errorf("%s: %v, want %q", tt.path, err, tt.want)
			}
		})
	}
}

func TestReadBoundedCatchesGrowth(t *testing.T) {
	// The stat size said small, but the stream is longer: the limit applies to what is read.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = w.Write(make([]byte, 100)); w.Close() }()
	if _, err := files.ReadBounded(r, 10, 50); !errors.Is(err, files.ErrTooLarge) {
		t.Fatalf("got %v", err)
	}
}

func mustMkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mustWriteFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
