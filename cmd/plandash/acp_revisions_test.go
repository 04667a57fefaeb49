package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/metrics"
	"github.com/plandash/plandash/internal/web"
)

// startDashboard runs a real dashboard (token "tok") on data, closed when the test ends.
func startDashboard(t *testing.T, ctx context.Context, data string) (*app.App, *httptest.Server) {
	t.Helper()
	srv, err := app.Open(ctx, app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, DataDir: data, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(srv.Server.Handler())
	t.Cleanup(ts.Close)
	return srv, ts
}

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
	srv, ts := startDashboard(t, ctx, data)

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

// TestAcpDeliversABurstWhole: a burst of traffic three times what the tap queues (a session
// loaded with its whole history, say) reaches a dashboard that keeps up whole: every frame of
// both directions, and every state of the plan, none dropped or coalesced on the way.
func TestAcpDeliversABurstWhole(t *testing.T) {
	if _, err := exec.LookPath("cat"); err != nil {
		t.Skip("no cat to play the agent")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	data := t.TempDir()
	srv, ts := startDashboard(t, ctx, data)

	// The IDE sends it all at once; cat, the agent, sends it back: 2 × frames frames tapped,
	// against a queue of 10,000.
	const frames, every = 15_000, 500
	var in strings.Builder
	for i := range frames {
		update := fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk %d"}}`, i)
		if i%every == 0 {
			update = fmt.Sprintf(`{"sessionUpdate":"plan","entries":[{"content":"Step %d","priority":"medium","status":"pending"}]}`, i)
		}
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-burst","update":%s}}`+"\n", update)
	}
	args := []string{"acp", "--server", ts.URL, "--token", "tok", "--data", data, "--flush", "2m", "--", "cat"}
	var stdout, stderr bytes.Buffer
	if err := run(ctx, args, func(string) string { return "" }, strings.NewReader(in.String()), &stdout, &stderr); err != nil {
		t.Fatalf("plandash acp: %v\n%s", err, stderr.String())
	}
	if stdout.String() != in.String() {
		t.Fatalf("the IDE got %d bytes back, not the %d it sent", stdout.Len(), in.Len())
	}
	if got := srv.Metrics.IngestMessages.With(metrics.MessageKind("session/update", false)).Value(); got != 2*frames {
		t.Errorf("the dashboard took %d session/updates, want all %d\n%s", got, 2*frames, stderr.String())
	}
	revs, err := srv.Plans.History(ctx, "s-burst", "main")
	if err != nil {
		t.Fatalf("no plan stored: %v\n%s", err, stderr.String())
	}
	// cat sends back the plan frames the IDE sent: the dashboard stores the states of both.
	if len(revs) != 2*frames/every {
		t.Errorf("stored %d revisions of the plan, want every one of the %d", len(revs), 2*frames/every)
	}
	if strings.Contains(stderr.String(), "missed") {
		t.Errorf("the proxy says the dashboard missed traffic:\n%s", stderr.String())
	}
}

// TestAcpFlushBoundsASlowDashboard: a dashboard that answers every post, but slowly, does not keep
// the proxy alive past --flush once the agent's output has ended: the proxy stops delivering,
// says so, and exits.
func TestAcpFlushBoundsASlowDashboard(t *testing.T) {
	if _, err := exec.LookPath("cat"); err != nil {
		t.Skip("no cat to play the agent")
	}
	var posts atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		posts.Add(1)
		time.Sleep(100 * time.Millisecond)
		fmt.Fprint(w, `{"applied":1,"errors":[]}`)
	}))
	defer slow.Close()
	// 2 × 20,000 frames in posts of at most 1,000: 40 posts, 4 s at the dashboard's pace.
	const frames = 20_000
	var in strings.Builder
	for i := range frames {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-slow","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk %d"}}}}`+"\n", i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := []string{"acp", "--server", slow.URL, "--token", "tok", "--data", t.TempDir(), "--flush", "200ms", "--", "cat"}
	var stdout, stderr bytes.Buffer
	if err := run(ctx, args, func(string) string { return "" }, strings.NewReader(in.String()), &stdout, &stderr); err != nil {
		t.Fatalf("plandash acp: %v\n%s", err, stderr.String())
	}
	if stdout.String() != in.String() {
		t.Fatalf("the IDE got %d bytes back, not the %d it sent", stdout.Len(), in.Len())
	}
	// cat's output ends within moments, a post or two in; --flush allows two or three more. A
	// proxy that started the clock only once the tap had fed everything to the queue would have
	// stayed for 30 and more.
	if n := posts.Load(); n >= frames/1000 {
		t.Errorf("the proxy stayed for %d of the %d posts; --flush should have ended it sooner", n, 2*frames/1000)
	}
	if !strings.Contains(stderr.String(), "did not take the last frames in time") {
		t.Errorf("the proxy did not say it gave up:\n%s", stderr.String())
	}
}
