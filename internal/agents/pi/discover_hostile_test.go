package pi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

// TestDiscoverHostileFiles: a FIFO, a symlink out of the sessions directory, a line far over the
// limit and a truncated last line cost nothing and show nothing they should not; the good
// session beside them still shows.
func TestDiscoverHostileFiles(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	proj := filepath.Join(dir, "--tmp-x--")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(proj, "2026-11-28T00-00-00-000Z_fifo.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret.jsonl")
	if err := os.WriteFile(secret, []byte(`{"type":"session","id":"secret","cwd":"/secret"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(proj, "2026-11-28T00-00-00-000Z_link.jsonl")); err != nil {
		t.Fatal(err)
	}
	good := `{"type":"session","version":3,"id":"good","timestamp":"2026-11-28T07:00:00Z","cwd":"/tmp/x"}` + "\n" +
		`{"type":"message","id":"a","message":{"role":"user","content":"` + strings.Repeat("x", MaxSessionLine+10) + `"}}` + "\n" +
		`{"type":"message","id":"b","timestamp":"2026-11-28T07:00:01Z","message":{"role":"user","content":"hello there"}}` + "\n" +
		`{"type":"message","id":"c","message":{"role":"assis`
	if err := os.WriteFile(filepath.Join(proj, "2026-11-28T00-00-00-000Z_good.jsonl"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	p := agenttest.Plans(t)
	svc := NewService(p, nil, Config{Host: "h"})
	discover(t, svc, dir, func() bool {
		d, err := p.Session(context.Background(), SessionKey("good"))
		if err != nil {
			return false
		}
		for _, a := range d.Activity {
			if strings.Contains(a.Text, "hello there") {
				return true
			}
		}
		return false
	})
	time.Sleep(300 * time.Millisecond)
	ss, err := p.Sessions(context.Background(), 10)
	if err != nil || len(ss) != 1 || ss[0].ID != SessionKey("good") {
		t.Errorf("sessions = %+v, %v; want only the good one", ss, err)
	}
}
