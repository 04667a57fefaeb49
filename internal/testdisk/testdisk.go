// Package testdisk gives tests a small file system of their own that they can fill, to see
// what plandash does on a full disk: a tmpfs mounted in a temporary directory (the tests run as
// root). Where mounting is refused the test is skipped with a message saying so.
package testdisk

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new temporary directory and unmounts it when the test
// ends.
func Mount(t testing.TB, size int64) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "plandash-disk-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(dir) })
	opts := "size=" + strconv.FormatInt(size, 10) + ",mode=0700"
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("a full disk needs a small file system of its own, and mounting a tmpfs was refused (not root, or no mount privilege): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("unmount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// Fill writes a file into dir until the file system has no space left, and returns a function
// that removes it again.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	name := filepath.Join(dir, "filler")
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 64<<10)
	for {
		if _, err = f.Write(block); err != nil {
			break
		}
	}
	// Down to the last bytes: a write that fits in a smaller block would find room otherwise.
	for n := len(block) / 2; n > 0 && errors.Is(err, syscall.ENOSPC); n /= 2 {
		for {
			if _, err = f.Write(block[:n]); err != nil {
				break
			}
		}
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling %s stopped on %v, not on a full disk", dir, err)
	}
	return func() {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("free the disk: %v", err)
		}
	}
}
