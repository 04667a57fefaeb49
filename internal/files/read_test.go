package files

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
)

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadUnderRoots(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	mustWrite(t, filepath.Join(root, "plan.md"), "inside")
	mustWrite(t, filepath.Join(root, "big.md"), string(make([]byte, 100)))
	mustWrite(t, filepath.Join(outside, "secret"), "secret")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "leak")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := NewRoots(root)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want string
		err  error
	}{
		{filepath.Join(root, "plan.md"), "inside", nil},
		{filepath.Join(root, "missing.md"), "", fs.ErrNotExist},
		{filepath.Join(outside, "secret"), "", ErrDenied},
		{filepath.Join(root, "leak"), "", ErrDenied},
		{filepath.Join(root, "..", "outside", "secret"), "", ErrDenied},
		{filepath.Join(root, "dir"), "", ErrNotRegular},
		{filepath.Join(root, "big.md"), "", ErrTooLarge},
	}
	for _, c := range cases {
		got, err := r.Read(c.path, 50)
		if c.err == nil && (err != nil || string(got) != c.want) {
			t.Errorf("Read(%s) = %q, %v; want %q", c.path, got, err, c.want)
		}
		if c.err != nil && !errors.Is(err, c.err) {
			t.Errorf("Read(%s) error %v, want %v", c.path, err, c.err)
		}
	}
}

// A FIFO with no writer must be refused at once, not block the reader forever.
func TestReadRefusesFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	root := t.TempDir()
	fifo := filepath.Join(root, "plan.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := NewRoots(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(fifo, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("reading a FIFO: %v, want ErrNotRegular", err)
	}
}

// A directory on the path swapped for a symlink to outside, over and over while reads run,
// must never let a read return the outside file: every read sees the inside file or fails.
func TestReadSymlinkSwapRace(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	mustWrite(t, filepath.Join(root, "d", "plan.md"), "inside")
	mustWrite(t, filepath.Join(outside, "plan.md"), "SECRET")
	r, err := NewRoots(root)
	if err != nil {
		t.Fatal(err)
	}
	real, link := filepath.Join(root, "d"), filepath.Join(root, "d-real")
	if err := os.Rename(real, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d-real", real); err != nil {
		t.Fatal(err)
	}
	const rounds = 2000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	swapErr := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := filepath.Join(root, "d-tmp")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			target := "d-real"
			if i%2 == 0 {
				target = outside
			}
			_ = os.Remove(tmp)
			if err := os.Symlink(target, tmp); err != nil {
				swapErr <- err
				return
			}
			if err := os.Rename(tmp, real); err != nil {
				swapErr <- err
				return
			}
		}
	}()
	leaks := 0
	for range rounds {
		if b, err := r.Read(filepath.Join(real, "plan.md"), 1<<10); err == nil && string(b) != "inside" {
			leaks++
		}
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-swapErr:
		t.Fatalf("swapping: %v", err)
	default:
	}
	if leaks > 0 {
		t.Fatalf("%d of %d reads returned the file outside the root", leaks, rounds)
	}
}
