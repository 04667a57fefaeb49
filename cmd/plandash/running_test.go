package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/client"
)

// A second `plandash demo` while one runs says where the first one is and exits, instead of
// serving the same database on another port and deleting the first one's address file when it
// stops; a second `serve` on one data directory refuses to start.
func TestSecondServerOnOneDataDirectory(t *testing.T) {
	env := testEnv(t)
	data := t.TempDir()
	first := startServerEnv(t, env, "demo", "--data", data, "--plans-dir", filepath.Join(t.TempDir(), "plans"))
	var out, errOut syncBuffer
	if err := run(context.Background(), []string{"demo", "--data", data}, env, strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatalf("second demo: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "already running at "+first.base) || !strings.Contains(out.String(), "Open the dashboard: "+first.base+"/ (run `plandash url --data") {
		t.Fatalf("second demo said:\n%s", out.String())
	}
	if got := client.ReadAddr(data); got != first.base {
		t.Fatalf("the first demo's address file now says %q, want %q", got, first.base)
	}
	if code, _ := first.get(t, "/api/v1/plans"); code != 200 {
		t.Fatalf("the first demo answers %d after the second one exited", code)
	}

	err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data", data}, env, strings.NewReader(""), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "already running at "+first.base) {
		t.Fatalf("second serve on the same data directory: %v", err)
	}
	if _, err := os.Stat(client.AddrFile(data)); err != nil {
		t.Fatalf("the address file is gone: %v", err)
	}
}
