//go:build unix

package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/sharedplans"
)

// buildPlandash builds the real binary once for the calling test.
func buildPlandash(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "plandash")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "github.com/plandash/plandash/cmd/plandash").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startStdio runs `plandash mcp` on plansDir in work and connects the SDK's client to it. The
// client reads frames of any length, as docker-agent's does: a 10 MiB plan of control characters
// comes back as a frame of over 100 MiB.
func startStdio(t testing.TB, bin, plansDir, work string, args ...string) *mcp.ClientSession {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(bin, append([]string{"mcp", "--plans-dir", plansDir}, args...)...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+home, "PLANDASH_TOKEN=")
	if tt, ok := t.(*testing.T); ok {
		cmd.Stderr = testWriter{tt}
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = stdin.Close() // end of input: plandash mcp exits
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: stdout, Writer: stdin, MaxLineLength: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// flockPlans takes docker-agent's lock on dir from this test process, as another process holding
// it would.
func flockPlans(t *testing.T, dir string) (release func()) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, sharedplans.LockFileName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("taking the plans lock: %v", err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}
}

// callTool calls a tool and returns its text and whether it is a tool error.
func callTool(t testing.TB, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("protocol error: %v", err)
	}
	return r.Content[0].(*mcp.TextContent).Text, r.IsError
}

// TestStdioCancelledLockedWritesNeverLand is docker-agent's held-back case through `plandash
// mcp`: three write_plan calls wait on a lock another process holds; the client cancels them
// (the SDK sends notifications/cancelled behind the requests); the lock is released at once;
// the plan must be unchanged. The cancellations reach the server asynchronously, so before the
// fix a writer released by the unlock could win the race against its own cancellation; a few
// rounds make that visible.
func TestStdioCancelledLockedWritesNeverLand(t *testing.T) {
	bin := buildPlandash(t)
	plansDir, work := t.TempDir(), t.TempDir()
	cs := startStdio(t, bin, plansDir, work)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for round := range 6 {
		name := fmt.Sprintf("p%d", round)
		if text, isErr := callTool(t, ctx, cs, "write_plan", map[string]any{"name": name, "content": "original"}); isErr {
			t.Fatal(text)
		}
		release := flockPlans(t, plansDir)
		var wg sync.WaitGroup
		cancels := make([]context.CancelFunc, 3)
		errs := make([]error, 3)
		for i := range cancels {
			cctx, c := context.WithCancel(ctx)
			cancels[i] = c
			wg.Go(func() {
				_, errs[i] = cs.CallTool(cctx, &mcp.CallToolParams{Name: "write_plan",
					Arguments: map[string]any{"name": name, "content": fmt.Sprintf("cancelled-%d", i)}})
			})
		}
		// Let the calls reach the server and queue on the lock; the verdict does not depend on it.
		time.Sleep(200 * time.Millisecond)
		for _, c := range cancels {
			c()
		}
		wg.Wait()
		release()
		for i, err := range errs {
			if err == nil {
				t.Errorf("round %d: call %d returned a result after it was cancelled", round, i)
			}
		}

		// A guarded write serializes after anything still queued in the server: it succeeds
		// only if the plan is still at revision 1.
		text, isErr := callTool(t, ctx, cs, "write_plan", map[string]any{"name": name, "content": "after", "last_known_revision": 1})
		if isErr {
			t.Fatalf("round %d: a cancelled write landed: %s", round, text)
		}
		text, _ = callTool(t, ctx, cs, "read_plan", map[string]any{"name": name})
		var p sharedplans.Plan
		if err := json.Unmarshal([]byte(text), &p); err != nil {
			t.Fatal(text)
		}
		if p.Content != "after" || p.Revision != 2 {
			t.Fatalf("round %d: plan after the cancelled writes: content %q revision %d; want \"after\" at 2", round, p.Content, p.Revision)
		}
	}
}

// TestStdioHugePlan is the largest plan docker-agent accepts, 10 MiB of NUL bytes (60 MiB once
// JSON-escaped), through `plandash mcp`: write_plan sends it inline (a request frame of over
// 60 MiB, which the SDK's default 16 MiB line limit refused), update_plan_from_file reads it
// from a file, and both complete with the bytes stored. BenchmarkStdioUpdateFromHugeFile
// records how long the file update takes. Under -race the plan is 3 MiB (see raceEnabled).
func TestStdioHugePlan(t *testing.T) {
	bin := buildPlandash(t)
	plansDir, work := t.TempDir(), t.TempDir()
	cs := startStdio(t, bin, plansDir, work)
	size := sharedplans.MaxContentSize
	if raceEnabled {
		// Under the race detector this process's client decodes the result frames for minutes.
		// 3 MiB of NUL bytes is still an 18 MiB request frame, over the SDK's default limit.
		size = 3 << 20
	}
	body := make([]byte, size)
	if err := os.WriteFile(filepath.Join(work, "big.md"), body, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	store := sharedplans.New(plansDir)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"write_plan", map[string]any{"name": "inline", "content": string(body)}},
		{"update_plan_from_file", map[string]any{"name": "file", "path": "big.md"}},
	} {
		if text, isErr := callTool(t, ctx, cs, c.tool, c.args); isErr {
			t.Fatalf("%s: %.200s", c.tool, text)
		}
		p, ok, err := store.Get(ctx, c.args["name"].(string))
		if err != nil || !ok || len(p.Content) != len(body) || strings.Trim(p.Content, "\x00") != "" {
			t.Fatalf("%s: stored plan of %d bytes, ok %v, err %v", c.tool, len(p.Content), ok, err)
		}
	}
}

// BenchmarkStdioUpdateFromHugeFile times update_plan_from_file of 10 MiB of NUL bytes through
// `plandash mcp`, end to end: the tool, the SDK's encoding of the 130 MiB result frame, the
// pipe, and the client's decoding of it.
func BenchmarkStdioUpdateFromHugeFile(b *testing.B) {
	bin := buildPlandash(b)
	plansDir, work := b.TempDir(), b.TempDir()
	cs := startStdio(b, bin, plansDir, work)
	if err := os.WriteFile(filepath.Join(work, "big.md"), make([]byte, 10<<20), 0o600); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if text, isErr := callTool(b, ctx, cs, "update_plan_from_file", map[string]any{"name": "big", "path": "big.md"}); isErr {
			b.Fatal(text)
		}
	}
}
