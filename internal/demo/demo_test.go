package demo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/demo"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/web"
)

// wait bounds every wait here; a failure deadline, not a measurement.
const wait = 60 * time.Second

const token = "demo-test"

// serve runs the real application on a real port and returns its address.
func serve(t *testing.T, plansDir string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := app.Open(ctx, app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), User: "tester"},
		DataDir: t.TempDir(), Token: token, PlansDir: plansDir})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(wait):
			t.Error("the server did not stop")
		}
	})
	return "http://" + ln.Addr().String()
}

// api is a tiny JSON client for the assertions (the demo itself uses internal/client).
func api(t *testing.T, base, method, path, body string, v any) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s answered %s: %s", method, path, resp.Status, raw)
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
}

// runAgent starts the demo against base and returns a function that stops it and returns what
// Run returned.
func runAgent(t *testing.T, a *demo.Agent) func() error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	stopped := false
	var result error
	stop := func() error {
		if stopped {
			return result
		}
		stopped = true
		cancel()
		select {
		case result = <-done:
		case <-time.After(wait):
			t.Fatal("the demo did not stop after its context ended")
		}
		return result
	}
	t.Cleanup(func() { stop() })
	return stop
}

// TestAgentFillsTheDashboard runs the scripted agents against the real server: every plan kind
// the demo promises shows up, its plan-mode agent waits at the gate and goes on once approved,
// the shared plan is written to disk, and it stops cleanly when its context ends.
func TestAgentFillsTheDashboard(t *testing.T) {
	if testing.Short() {
		t.Skip("the scripted agents take seconds")
	}
	plansDir := t.TempDir()
	base := serve(t, plansDir)
	stop := runAgent(t, &demo.Agent{API: client.New(base, token), Dir: t.TempDir(), PlansDir: plansDir, Speed: 10})

	type overview struct {
		Sessions []struct {
			Session struct {
				ID    string
				Agent string
			}
			Plans []struct {
				ID   string
				Kind string
			}
		}
	}
	var pending struct {
		Requests []struct {
			ID, Title, SessionID string
		}
	}
	var ov overview
	kinds := map[string]bool{}
	deadline := time.Now().Add(wait)
	for {
		api(t, base, "GET", "/api/v1/plans", "", &ov)
		api(t, base, "GET", "/api/v1/approvals?status=pending", "", &pending)
		for _, g := range ov.Sessions {
			for _, p := range g.Plans {
				kinds[p.Kind] = true
			}
		}
		if kinds["items"] && kinds["markdown"] && kinds["file"] && kinds["dag"] && kinds["custom"] && len(pending.Requests) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: plan kinds %v, %d pending requests; want items, markdown, file, dag, custom and one request", wait, kinds, len(pending.Requests))
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}
	req := pending.Requests[0]
	if req.Title != "Migrate sessions to Redis" || req.SessionID == "" {
		t.Fatalf("the waiting request is %+v", req)
	}

	// Approved, the plan-mode agent leaves plan mode and works through its checklist.
	api(t, base, "POST", "/api/v1/approvals/"+req.ID+"/decision", `{"action":"approve"}`, nil)
	for {
		var s struct {
			Plans []struct{ ID string }
		}
		api(t, base, "GET", "/api/v1/sessions/"+req.SessionID, "", &s)
		found := false
		for _, p := range s.Plans {
			found = found || p.ID == "redis-migration"
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the approved agent never started its checklist: plans %+v", s.Plans)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}

	// The "architect" keeps a shared plan in the plans directory, in docker-agent's format.
	p, ok, err := sharedplans.New(plansDir).Get(context.Background(), "release-1-4")
	if err != nil || !ok || p.Title != "Release 1.4" || !strings.Contains(p.Content, "Freeze the API") {
		t.Fatalf("shared plan = %+v, found %v, %v", p, ok, err)
	}

	if err := stop(); err != nil {
		t.Fatalf("Run returned %v after its context ended, want nil", err)
	}
}

func TestAgentNeedsAServer(t *testing.T) {
	if err := (&demo.Agent{Dir: t.TempDir()}).Run(context.Background()); err == nil {
		t.Fatal("Run without an API returned nil")
	}
}

// A server that refuses the demo (a wrong token) ends Run with that error instead of looping.
func TestAgentReportsARefusingServer(t *testing.T) {
	base := serve(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	err := (&demo.Agent{API: client.New(base, "wrong-token"), Dir: t.TempDir(), Speed: 50}).Run(ctx)
	if ctx.Err() != nil {
		t.Fatalf("Run kept going against a server that refuses it (returned %v only at the deadline)", err)
	}
	if err == nil || client.StatusOf(err) != http.StatusUnauthorized {
		t.Fatalf("Run = %v, want the server's 401", err)
	}
}

// A demo left running for twenty minutes had 43 finished rounds on its overview. Each scripted
// agent keeps its live round and the one before; older rounds retire from the overview (their
// sessions stay listed on the sessions page), and the agent's messages read as separate
// paragraphs rather than sentences glued at their full stops.
func TestDemoRetiresFinishedRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("the scripted agents take seconds")
	}
	base := serve(t, "")
	stop := runAgent(t, &demo.Agent{API: client.New(base, token), Dir: t.TempDir(), Speed: 60})
	defer stop()
	const cwd = "/home/dev/shop-api" // the to-do agent's rounds: it never waits for a person
	type sessions struct {
		Sessions []struct {
			ID  string
			Cwd string
		}
	}
	type overview struct {
		Sessions []struct {
			Session struct{ ID, Cwd string }
		}
	}
	deadline := time.Now().Add(wait)
	for {
		var all sessions
		api(t, base, "GET", "/api/v1/sessions?limit=200", "", &all)
		rounds := 0
		for _, s := range all.Sessions {
			if s.Cwd == cwd {
				rounds++
			}
		}
		if rounds >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d rounds of the to-do agent within %s", rounds, wait)
		}
		time.Sleep(100 * time.Millisecond) // polling interval, not an assertion
	}
	var ov overview
	api(t, base, "GET", "/api/v1/plans?limit=200", "", &ov)
	shown := 0
	for _, g := range ov.Sessions {
		if g.Session.Cwd == cwd {
			shown++
		}
	}
	// The live round, the one ended before it, and at most one more ending as we look.
	if shown > keptRoundsOnOverview+1 {
		t.Errorf("%d of the to-do agent's rounds on the overview, want at most %d", shown, keptRoundsOnOverview+1)
	}
}

// keptRoundsOnOverview is the live round and one ended one.
const keptRoundsOnOverview = 2

// TestDemoAsksAndWaits: the demo's question agent waits on the dashboard for its answer and
// goes on with it; its idle agent waits for the next prompt, with its last message.
func TestDemoAsksAndWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("the scripted agents take seconds")
	}
	base := serve(t, t.TempDir())
	runAgent(t, &demo.Agent{API: client.New(base, token), Dir: t.TempDir(), Speed: 10})
	type list struct {
		Seq   uint64
		Waits []struct {
			ID, Kind, Detail string
			Answerable       bool
			Actions          []struct{ ID, Label string }
		}
	}
	var l list
	seen := map[string]bool{}
	answered := false
	deadline := time.Now().Add(wait)
	for !(answered && seen["idle"] && seen["went on"]) {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: answered %v, seen %v; last list %+v", wait, answered, seen, l)
		}
		api(t, base, "GET", fmt.Sprintf("/api/v1/waits?after=%d&wait=5s", l.Seq), "", &l)
		for _, w := range l.Waits {
			switch {
			case w.Kind == "question" && !answered && len(w.Actions) == 2 && w.Actions[1].Label == "SQLite":
				api(t, base, "POST", "/api/v1/waits/"+w.ID+"/answer", `{"action":"opt-1"}`, nil)
				answered = true
			case w.Kind == "input" && strings.Contains(w.Detail, "Shall I also export") && !w.Answerable:
				seen["idle"] = true
			case w.Kind == "input" && answered && strings.Contains(w.Detail, "Going with SQLite"):
				seen["went on"] = true
			}
		}
	}
}

// TestDemoEndsAStoppedRunsWaits: a demo stopped while its idle agent waits for the next prompt
// leaves that wait behind; the next demo on the same directory ends it before starting its own.
func TestDemoEndsAStoppedRunsWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("the scripted agents take seconds")
	}
	base, dir := serve(t, t.TempDir()), t.TempDir()
	type list struct {
		Seq   uint64
		Waits []struct{ ID, Kind, Detail string }
	}
	// inputWaits are the ids of the waits for a next prompt, after the list changed past seq.
	inputWaits := func(l *list) []string {
		api(t, base, "GET", fmt.Sprintf("/api/v1/waits?after=%d&wait=5s", l.Seq), "", l)
		var ids []string
		for _, w := range l.Waits {
			if w.Kind == "input" && strings.Contains(w.Detail, "Shall I also export") {
				ids = append(ids, w.ID)
			}
		}
		return ids
	}
	stop := runAgent(t, &demo.Agent{API: client.New(base, token), Dir: dir, Speed: 10})
	var l list
	var stale []string
	for deadline := time.Now().Add(wait); len(stale) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("after %s no agent waited for its next prompt; last list %+v", wait, l)
		}
		stale = inputWaits(&l)
	}
	stop()
	if left := inputWaits(&list{}); !slices.Contains(left, stale[0]) {
		t.Fatalf("the stopped demo's wait %s is gone before the next run (waits %v): nothing to test", stale[0], left)
	}
	runAgent(t, &demo.Agent{API: client.New(base, token), Dir: dir, Speed: 10})
	for deadline := time.Now().Add(wait); ; {
		if time.Now().After(deadline) {
			t.Fatalf("after %s the stopped run's wait %s still waits; last list %+v", wait, stale[0], l)
		}
		if !slices.Contains(inputWaits(&l), stale[0]) {
			break
		}
	}
}
