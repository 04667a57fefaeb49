//go:build unix

package claude

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// runDiscoverer runs d until the test ends.
func runDiscoverer(t *testing.T, d *Discoverer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Run did not return")
		}
	})
}

func eventually(t *testing.T, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v: %s", timeout, why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func putFile(t *testing.T, path, s string, flag int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, flag|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// todoLine is an assistant line calling TodoWrite and the user line with its result.
func todoLines(sid, callID, todo string) string {
	return fmt.Sprintf(`{"type":"assistant","sessionId":%q,"cwd":"/w","message":{"id":"m-%s","model":"claude-x","content":[{"type":"tool_use","id":%q,"name":"TodoWrite","input":{"todos":[{"content":%q,"status":"pending","activeForm":"a"}]}}],"usage":{"input_tokens":100,"output_tokens":5}}}`+"\n"+
		`{"type":"user","sessionId":%q,"message":{"content":[{"type":"tool_result","tool_use_id":%q,"content":"ok"}]},"toolUseResult":{"newTodos":[]}}`+"\n",
		sid, callID, callID, todo, sid, callID)
}

// TestDiscoverHostileFiles: next to a real session's transcript sit a FIFO, a symlink to a
// transcript outside the projects directory, a linked project directory, a binary file, a line
// over the limit, a line cut in the middle (finished later) and a transcript rewritten shorter.
// None blocks the discoverer, none shows what it should not, and the real session shows, then
// follows its growth.
func TestDiscoverHostileFiles(t *testing.T) {
	home, outside := t.TempDir(), t.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	proj := filepath.Join(projects, "-w")
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "h"})

	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	putFile(t, filepath.Join(outside, "secret.jsonl"), todoLines("secret", "c1", "outside secret"), os.O_TRUNC)
	if err := os.Symlink(filepath.Join(outside, "secret.jsonl"), filepath.Join(proj, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(projects, "-linked")); err != nil {
		t.Fatal(err)
	}
	bin := make([]byte, 1<<20)
	_, _ = rand.Read(bin)
	putFile(t, filepath.Join(proj, "binary.jsonl"), string(bin), os.O_TRUNC)
	huge := `{"type":"user","sessionId":"huge","message":{"content":"` + strings.Repeat("x", MaxTranscriptLine+10) + `"}}` + "\n"
	putFile(t, filepath.Join(proj, "huge.jsonl"), huge+todoLines("huge", "c1", "after the huge line"), os.O_TRUNC)
	good := filepath.Join(proj, "good.jsonl")
	full := todoLines("good", "c1", "first")
	putFile(t, good, full[:len(full)-40], os.O_TRUNC) // cut mid-line

	runDiscoverer(t, svc.NewDiscoverer(projects, DiscoverOptions{Rescan: 100 * time.Millisecond}))

	todos := func(sid string) string { return planSummaryQuiet(p, SessionKey(sid), PlanTodos) }
	eventually(t, 20*time.Second, func() (bool, string) {
		return todos("huge") == "after the huge line=pending", "the line after the huge one: " + todos("huge")
	})
	if got := todos("good"); got != "" {
		t.Fatalf("a half-written line applied: %q", got)
	}
	putFile(t, good, full[len(full)-40:], os.O_APPEND)
	eventually(t, 20*time.Second, func() (bool, string) { return todos("good") == "first=pending", "good: " + todos("good") })
	putFile(t, good, todoLines("good", "c2", "second"), os.O_APPEND)
	eventually(t, 20*time.Second, func() (bool, string) { return todos("good") == "second=pending", "growth: " + todos("good") })
	// Rewritten shorter: read again from its start.
	putFile(t, good, todoLines("good", "c3", "rewritten"), os.O_TRUNC)
	eventually(t, 20*time.Second, func() (bool, string) { return todos("good") == "rewritten=pending", "rewrite: " + todos("good") })

	list, err := p.Sessions(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.ID == SessionKey("secret") {
			t.Errorf("read through a symlink: %+v", s)
		}
		if s.Usage == nil || s.Usage.Model != "claude-x" {
			t.Errorf("usage of %s = %+v", s.ID, s.Usage)
		}
	}
}

// TestDiscoverManyFiles: 10,000 transcripts at once (most one line of junk, a few real) are
// all looked at and the real ones show; the junk shows nothing.
func TestDiscoverManyFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 files")
	}
	projects := filepath.Join(t.TempDir(), "projects")
	p := newPlans(t)
	svc := NewService(p, nil, Config{Host: "h"})
	for i := range 10000 {
		dir := filepath.Join(projects, fmt.Sprintf("-p%d", i%50))
		body := "\x00\x01not json\n"
		if i%1000 == 0 {
			body = todoLines(fmt.Sprintf("s%d", i), "c1", "real")
		}
		putFile(t, filepath.Join(dir, fmt.Sprintf("%d.jsonl", i)), body, os.O_TRUNC)
	}
	start := time.Now()
	runDiscoverer(t, svc.NewDiscoverer(projects, DiscoverOptions{Log: quietLog()}))
	eventually(t, 60*time.Second, func() (bool, string) {
		list, _ := p.Sessions(context.Background(), 100)
		return len(list) == 10, fmt.Sprintf("%d sessions", len(list))
	})
	t.Logf("10,000 files, 10 sessions shown in %v", time.Since(start))
}

func planSummaryQuiet(p *plans.Service, key, planID string) string {
	d, err := p.Session(context.Background(), key)
	if err != nil {
		return ""
	}
	for _, pl := range d.Plans {
		if pl.ID == planID && !pl.Removed {
			var out []string
			for _, e := range pl.Entries {
				out = append(out, e.Content+"="+e.Status)
			}
			return strings.Join(out, ",")
		}
	}
	return ""
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
