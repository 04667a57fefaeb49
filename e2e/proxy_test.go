package e2e

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The plan agent's session id (testdata/planagent).
const planSession = "sess_plan_1"

// TestProxyGoSDKPeersSeeIdenticalTranscripts runs the Go SDK's example client and agent twice,
// directly and through `plandash acp --`, recording with tee what each side sent and received.
// Through the proxy each side receives exactly what the other sent, and the same bytes as in the
// direct run; only the session id differs, because the example agent draws it at random.
func TestProxyGoSDKPeersSeeIdenticalTranscripts(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	client, agent, plandash := tool(t, "client"), tool(t, "agent"), tool(t, "plandash")
	dir := t.TempDir()
	direct := exec.Command(client, "sh", "-c", `tee direct-c2a.jsonl | "$0" | tee direct-a2c.jsonl`, agent)
	proxied := exec.Command(client, "sh", "-c",
		`tee ide-c2a.jsonl | "$0" acp --server "$1" --token "$2" -- sh -c 'tee agent-c2a.jsonl | "$0" | tee agent-a2c.jsonl' "$3" | tee ide-a2c.jsonl`,
		plandash, "http://"+a.addr, token, agent)
	errs := make(chan error, 2)
	for _, cmd := range []*exec.Cmd{direct, proxied} {
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader("1\n") // the client's user picks the first option
		go func() {
			out, err := cmd.CombinedOutput()
			if err == nil && !bytes.Contains(out, []byte("Agent completed")) {
				err = &exec.ExitError{}
			}
			if err != nil {
				t.Logf("%s:\n%s", cmd.Args, out)
			}
			errs <- err
		}()
	}
	for range 2 {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatalf("a client run failed: %v", err)
			}
		case <-time.After(2 * waitFor):
			t.Fatalf("a client run did not finish within %s", 2*waitFor)
		}
	}
	// The client kills its agent pipeline when done; tee may still be writing its file.
	read := func(name string) []byte {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return b
	}
	deadline := time.Now().Add(waitFor)
	for !(bytes.Contains(read("ide-a2c.jsonl"), []byte("stopReason")) && bytes.Contains(read("direct-a2c.jsonl"), []byte("stopReason"))) {
		if time.Now().After(deadline) {
			t.Fatal("the transcripts were not complete in time")
		}
		time.Sleep(20 * time.Millisecond)
	}
	sessID := regexp.MustCompile(`sess_[0-9a-f]{24}`)
	norm := func(b []byte) []byte { return sessID.ReplaceAll(b, []byte("sess_…")) }
	for _, pair := range [][3]string{
		{"agent-c2a.jsonl", "ide-c2a.jsonl", "what the agent received vs what the IDE sent"},
		{"ide-a2c.jsonl", "agent-a2c.jsonl", "what the IDE received vs what the agent sent"},
	} {
		if got, want := read(pair[0]), read(pair[1]); !bytes.Equal(got, want) {
			t.Errorf("%s differ:\n%s\n---\n%s", pair[2], got, want)
		}
	}
	for _, pair := range [][2]string{{"ide-c2a.jsonl", "direct-c2a.jsonl"}, {"ide-a2c.jsonl", "direct-a2c.jsonl"}} {
		if got, want := norm(read(pair[0])), norm(read(pair[1])); !bytes.Equal(got, want) {
			t.Errorf("%s differs from the direct run's %s:\n%s\n---\n%s", pair[0], pair[1], got, want)
		}
	}
	if n := bytes.Count(read("ide-a2c.jsonl"), []byte("\n")) + bytes.Count(read("ide-c2a.jsonl"), []byte("\n")); n != 16 {
		t.Errorf("%d frames exchanged, want the example's 16", n)
	}

	// The dashboard saw the session: both tool calls and the permission request.
	id := sessID.Find(read("ide-a2c.jsonl"))
	deadline = time.Now().Add(waitFor)
	for {
		var s struct {
			ToolCalls []json.RawMessage
			Activity  []struct {
				Kind string `json:"kind"`
			}
		}
		// The session may not be stored yet (404): that is "not yet", not a failure.
		if code, raw := a.gateAPI(http.MethodGet, "/api/v1/sessions/"+string(id), ""); code == http.StatusOK {
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("session %s: decode %s: %v", id, raw, err)
			}
		}
		var kinds []string
		for _, act := range s.Activity {
			kinds = append(kinds, act.Kind)
		}
		if len(s.ToolCalls) == 2 && strings.Contains(strings.Join(kinds, " "), "permission") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard has %d tool calls and activity %v for %s", len(s.ToolCalls), kinds, id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestProxyPlanAgentOnDashboard drives the scripted plan agent through the proxy from a
// scripted IDE and watches the dashboard follow in the browser.
func TestProxyPlanAgentOnDashboard(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	p := openPage(t, a, "/")
	ide := startIDE(t, acpArgs(a, "--", tool(t, "planagent"))...)
	sess := ide.open(true)
	if sess != planSession {
		t.Fatalf("session %q", sess)
	}
	ide.prompt(sess, "plans")
	for _, plan := range []string{"tasks", "plan-mode", "design", "review"} {
		p.wait("the "+plan+" plan's card", exists(card(sess, plan)))
	}
	p.markNoReload()
	ide.prompt(sess, "progress remove")
	p.wait("the removed plan's card to go", gone(card(sess, "review")))
	p.wait("the tasks plan's progress", attrIs(card(sess, "tasks")+` [data-testid="plan-progress"]`, "data-done", "1"))
	p.requireNoReload()

	ide.prompt(sess, "violation")
	s := openPage(t, a, "/sessions/"+sess)
	s.wait("the protocol violation in the activity", exists(`[data-testid="activity-item"][data-kind="_plandash/protocol_violation"]`))
	if code := ide.close(); code != 0 {
		t.Errorf("plandash acp exited with %d, want the agent's 0", code)
	}
}

// TestProxyBridgeToV1Client: with --plan-updates and an IDE that does not advertise plan, the
// IDE gets only v1 plans while the dashboard gets every plan the agent made.
func TestProxyBridgeToV1Client(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	ide := startIDE(t, acpArgs(a, "--plan-updates", "--", tool(t, "planagent"))...)
	sess := ide.open(false)
	ide.prompt(sess, "plans progress")
	waitPlans(t, a, sess, map[string]string{
		"tasks": "items:completed,in_progress,pending", "plan-mode": "markdown:", "design": "file:", "review": "items:pending",
	})
	ide.prompt(sess, "remove done")
	if got := strings.Join(sessionUpdates(ide.received()), " "); got != "plan plan plan plan" {
		t.Errorf("the IDE got %q, want only v1 plans", got)
	}
	waitPlans(t, a, sess, map[string]string{
		"tasks": "items:completed,completed,completed", "plan-mode": "markdown:", "design": "file:",
	})
	if code := ide.close(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// TestProxyDashboardRestart kills the dashboard mid-session and starts it again: the IDE and the
// agent carry on as if nothing happened, and the page is current once the dashboard is back.
func TestProxyDashboardRestart(t *testing.T) {
	dir := t.TempDir()
	a := startApp(t, dir, "127.0.0.1:0")
	addr := a.addr
	ide := startIDE(t, acpArgs(a, "--", tool(t, "planagent"))...)
	sess := ide.open(true)
	ide.prompt(sess, "plans")
	waitPlans(t, a, sess, map[string]string{"tasks": "items:in_progress,pending,pending", "plan-mode": "markdown:", "design": "file:", "review": "items:pending"})

	a.stop()
	ide.prompt(sess, "progress chunks:500")
	ide.prompt(sess, "remove done huge:100000")
	if kinds := sessionUpdates(ide.received()); len(kinds) != 4+1+500+2+1 {
		t.Errorf("while the dashboard was down the IDE got %d updates, want 508", len(kinds))
	}

	b := startAppRetryPort(t, dir, addr)
	p := openPage(t, b, "/")
	p.wait("the tasks plan, done", attrIs(card(sess, "tasks")+` [data-testid="plan-progress"]`, "data-done", "3"))
	p.wait("the removed plan gone", gone(card(sess, "review")))
	ide.prompt(sess, "progress")
	p.wait("a live update after the restart", attrIs(card(sess, "tasks")+` [data-testid="plan-progress"]`, "data-done", "1"))
	if code := ide.close(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// TestProxyRecordReplay: --record writes a transcript that `plandash ingest` replays into the
// same plans.
func TestProxyRecordReplay(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	rec := filepath.Join(t.TempDir(), "session.jsonl")
	ide := startIDE(t, acpArgs(a, "--record", rec, "--", tool(t, "planagent"))...)
	sess := ide.open(true)
	ide.prompt(sess, "plans progress")
	waitPlans(t, a, sess, map[string]string{"tasks": "items:completed,in_progress,pending", "plan-mode": "markdown:", "design": "file:", "review": "items:pending"})
	ide.prompt(sess, "remove violation permission")
	if code := ide.close(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	want := map[string]string{"tasks": "items:completed,in_progress,pending", "plan-mode": "markdown:", "design": "file:"}
	waitPlans(t, a, sess, want)

	fresh := startApp(t, t.TempDir(), "127.0.0.1:0")
	out, err := exec.Command(tool(t, "plandash"), "ingest", "--server", "http://"+fresh.addr, "--token", token, rec).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte(" 0 errors")) {
		t.Fatalf("plandash ingest %s: %v\n%s", rec, err, out)
	}
	waitPlans(t, fresh, sess, want)
}

// TestProxyServeEmbedded: with --serve and no server running, the proxy serves the dashboard
// itself, with the token it creates in --data.
func TestProxyServeEmbedded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a free port nobody serves
	data := t.TempDir()
	ide := startIDE(t, "acp", "--serve", "--server", "http://"+addr, "--data", data, "--", tool(t, "planagent"))
	sess := ide.open(true)
	ide.prompt(sess, "plans")
	tok, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		t.Fatalf("the embedded server made no token: %v\n%s", err, ide.logs())
	}
	view := &app{t: t, addr: addr, client: &http.Client{Timeout: waitFor}}
	if strings.TrimSpace(string(tok)) != token {
		// apiPlans sends the tests' token; ask with the real one through a small wrapper.
		view.client.Transport = bearer(strings.TrimSpace(string(tok)))
	}
	waitPlans(t, view, sess, map[string]string{"tasks": "items:in_progress,pending,pending", "plan-mode": "markdown:", "design": "file:", "review": "items:pending"})
	if code := ide.close(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// bearer replaces the Authorization header with another token.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
