//go:build unix

package web

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/sharedplans"
)

// TestSharedAPILockTimeout: a write waiting on another process's lock gives up with 503.
func TestSharedAPILockTimeout(t *testing.T) {
	ts := newSharedServer(t, false, testConfig{LockWait: 100 * time.Millisecond})
	f, err := os.OpenFile(filepath.Join(ts.dir, sharedplans.LockFileName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	code, _, body := ts.call(t, "PUT", "/api/v1/shared-plans/release", `{"content":"x"}`, nil)
	if code != 503 || !strings.Contains(string(body), `"code": "unavailable"`) {
		t.Fatalf("%d %s", code, body)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if code, _, body := ts.call(t, "PUT", "/api/v1/shared-plans/release", `{"content":"x"}`, nil); code != 201 {
		t.Fatalf("after the lock is released: %d %s", code, body)
	}
}
