package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/web"
)

// TestAcpKeepsEveryPlanRevision: an agent that updates its plan every 20 ms through a proxy
// whose dashboard keeps up gets every state stored as a revision; the proxy coalesces plan
// states only when the dashboard falls behind.
func TestAcpKeepsEveryPlanRevision(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to play the agent")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	data := t.TempDir()
	srv, err := app.Open(ctx, app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, DataDir: data, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	const revisions = 4
	var script []string
	for i := range revisions {
		entries := make([]string, revisions)
		for j := range entries {
			status := "pending"
			if j < i {
				status = "completed"
			}
			entries[j] = fmt.Sprintf(`{"content":"Step %d","priority":"medium","status":"%s"}`, j, status)
		}
		line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-revs","update":{"sessionUpdate":"plan","entries":[` + strings.Join(entries, ",") + `]}}}`
		script = append(script, "printf '%s\\n' '"+line+"'", "sleep 0.02")
	}
	args := []string{"acp", "--server", ts.URL, "--token", "tok", "--data", data, "--flush", "20s", "--", "sh", "-c", strings.Join(script, "; ")}
	var stdout, stderr bytes.Buffer
	if err := run(ctx, args, func(string) string { return "" }, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatalf("plandash acp: %v\n%s", err, stderr.String())
	}
	if n := strings.Count(stdout.String(), `"s-revs"`); n != revisions {
		t.Fatalf("the IDE got %d updates, want %d", n, revisions)
	}
	revs, err := srv.Plans.History(ctx, "s-revs", "main")
	if err != nil {
		t.Fatalf("no plan stored: %v\n%s", err, stderr.String())
	}
	if len(revs) != revisions {
		t.Errorf("stored %d revisions, want every one of the %d\n%s", len(revs), revisions, stderr.String())
	}
}
