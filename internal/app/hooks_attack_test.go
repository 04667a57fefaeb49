package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 25, items 9 and 10: a hook event names the file a plan is read from, and chose the
// directories it may lie under (its cwd, its plans directory). An attacker holding an ingest
// token named the data directory's token file, /etc/passwd, symlinks out of allowed
// directories and FIFOs. These tests send exactly that through POST /api/v1/hooks/{agent}.

// geminiExit is Gemini CLI's exit_plan_mode hook event as an attacker writes it: cwd and the
// plans directory at "/", so any absolute plan_filename lies "inside".
func geminiExit(event, session, file string) map[string]any {
	return map[string]any{"hook_event_name": event, "session_id": session, "cwd": "/", "plandash_plans_dir": "/",
		"tool_name": "exit_plan_mode", "tool_input": map[string]any{"plan_filename": file},
		"tool_response": map[string]any{"llmContent": "Plan approved."}}
}

// claudeExit is Claude Code's PermissionRequest for ExitPlanMode with no injected plan, so the
// server looks for it at planFilePath.
func claudeExit(session, file string) map[string]any {
	return map[string]any{"hook_event_name": "PermissionRequest", "session_id": session, "cwd": "/",
		"permission_mode": "plan", "tool_name": "ExitPlanMode", "tool_input": map[string]any{"planFilePath": file}}
}

// openCodeExit is plan_exit's question as the OpenCode plugin posts it, from directory "/".
func openCodeExit(session, question, file string) map[string]any {
	return map[string]any{"type": "question.asked", "directory": "/", "properties": map[string]any{
		"id": question, "sessionID": session, "questions": []any{map[string]any{"header": "Build Agent",
			"question": "Plan at " + file + " is complete. Would you like to switch to the build agent and start implementing?"}}}}
}

// TestHookGeminiCaptureReadsNoOutsideFile: AfterTool events naming each target are recorded,
// but no session shows a target's content; the FIFOs do not stall the recorder, so a todo
// list posted after them is recorded too.
func TestHookGeminiCaptureReadsNoOutsideFile(t *testing.T) {
	r := startHookRig(t, 0)
	targets, fifos := r.plant(t)
	names := append(append([]string{}, targets.paths...), fifos...)
	for i := range 5 { // the FIFOs again: one event stalled the old recorder for good
		names = append(names, fifos[i%len(fifos)])
	}
	for i, name := range names {
		r.hook(t, "gemini", geminiExit("AfterTool", fmt.Sprintf("atk-%d", i), name))
	}
	r.hook(t, "gemini", map[string]any{"hook_event_name": "AfterTool", "session_id": "after", "cwd": "/w",
		"tool_name": "write_todos", "tool_input": map[string]any{"todos": []any{map[string]any{"description": "still here", "status": "pending"}}}})
	r.session(t, "gemini:after", func(doc []byte) bool { return strings.Contains(string(doc), "still here") })
	for i := range names {
		doc := r.session(t, fmt.Sprintf("gemini:atk-%d", i), nil)
		targets.noSecret(t, "gemini session "+names[i], doc)
	}
}

// TestHookGeminiGateReadsNoOutsideFile: the BeforeTool gate event puts the plan at the gate;
// the request shows why the file was not read, never its content, and a FIFO does not hold
// the request back from the gate.
func TestHookGeminiGateReadsNoOutsideFile(t *testing.T) {
	r := startHookRig(t, 0)
	targets, fifos := r.plant(t)
	names := append(append([]string{}, targets.paths...), fifos...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			r.do(t, ctx, r.ingest, "POST", "/api/v1/hooks/gemini", mustJSON(t, geminiExit("BeforeTool", fmt.Sprintf("gate-%d", i), name)))
		})
	}
	r.pending(t, len(names))
	doc := r.admin(t, "/api/v1/approvals?status=pending&limit=500")
	targets.noSecret(t, "the pending requests", doc)
	if !strings.Contains(string(doc), "plan file not shown") {
		t.Errorf("the requests do not say why the plan file was not shown: %s", doc)
	}
	cancel()
	wg.Wait()
}

// TestHookClaudeGateFIFONoLeak: many PermissionRequests naming FIFOs (and the other targets)
// all reach the gate; once their hooks give up, the goroutines and descriptors they used are
// back, and no request shows a target's content. The old reader blocked in open(2) for good,
// one thread and three descriptors per event.
func TestHookClaudeGateFIFONoLeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts descriptors in /proc/self/fd")
	}
	r := startHookRig(t, 0)
	targets, fifos := r.plant(t)
	// Warm up: the first request opens the connections and caches that stay.
	ctx0, cancel0 := context.WithCancel(context.Background())
	warm := make(chan struct{})
	go func() {
		defer close(warm)
		r.do(t, ctx0, r.ingest, "POST", "/api/v1/hooks/claude", mustJSON(t, claudeExit("warm", fifos[0])))
	}()
	r.pending(t, 1)
	cancel0()
	<-warm
	http0 := settle(t, -1, -1)

	const n = 60
	names := append(append([]string{}, targets.paths...), fifos...)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r.do(t, ctx, r.ingest, "POST", "/api/v1/hooks/claude", mustJSON(t, claudeExit(fmt.Sprintf("leak-%d", i), names[i%len(names)])))
		})
	}
	r.pending(t, n)
	targets.noSecret(t, "the pending requests", r.admin(t, "/api/v1/approvals?status=pending&limit=500"))
	cancel()
	wg.Wait()
	settle(t, http0.goroutines, http0.fds)
	for i := range len(names) {
		targets.noSecret(t, "claude session", r.session(t, fmt.Sprintf("claude-code:leak-%d", i), nil))
	}
}

type counts struct{ goroutines, fds int }

// settle waits until the process's goroutines and open descriptors are back to at most the
// given counts (plus a little slack for the HTTP client's idle connections), and returns them;
// negative bounds only wait for the counts to stop falling.
func settle(t *testing.T, goroutines, fds int) counts {
	t.Helper()
	const slack = 8
	now := func() counts {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return counts{runtime.NumGoroutine(), len(ents)}
	}
	deadline := time.Now().Add(20 * time.Second)
	prev := now()
	for {
		time.Sleep(100 * time.Millisecond)
		c := now()
		if goroutines < 0 && c == prev {
			return c
		}
		if goroutines >= 0 && c.goroutines <= goroutines+slack && c.fds <= fds+slack {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the hooks gave up: %d goroutines (had %d), %d descriptors (had %d)", c.goroutines, goroutines, c.fds, fds)
		}
		prev = c
	}
}

// TestHookOpenCodeReadsNoOutsideFile: plan_exit's question naming each target (from directory
// "/") reaches the gate without the file's content; one naming a plan in the allowed root
// still shows it.
func TestHookOpenCodeReadsNoOutsideFile(t *testing.T) {
	r := startHookRig(t, 0)
	targets, fifos := r.plant(t)
	good := filepath.Join(r.allowed, "plans", "good.md")
	if err := os.MkdirAll(filepath.Dir(good), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, []byte("# Good plan\n\n1. Ship\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := append(append([]string{}, targets.paths...), fifos...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i, name := range append(names, good) {
		wg.Go(func() {
			r.do(t, ctx, r.ingest, "POST", "/api/v1/hooks/opencode", mustJSON(t, openCodeExit(fmt.Sprintf("ses_%d", i), fmt.Sprintf("que_%d", i), name)))
		})
	}
	r.pending(t, len(names)+1)
	doc := r.admin(t, "/api/v1/approvals?status=pending&limit=500")
	targets.noSecret(t, "the pending requests", doc)
	if !strings.Contains(string(doc), "1. Ship") {
		t.Errorf("the plan inside the allowed root is not shown: %s", doc)
	}
	for i := range names {
		targets.noSecret(t, "opencode session", r.session(t, fmt.Sprintf("opencode:ses_%d", i), nil))
	}
	cancel()
	wg.Wait()
}

// TestHookPlanInsideAllowedDirsShows: no regression: a plan file in Claude's and Gemini's own
// plan directories, and one under --allow-root, is shown as before.
func TestHookPlanInsideAllowedDirsShows(t *testing.T) {
	r := startHookRig(t, 0)
	write := func(path, text string) string {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	gem := write(filepath.Join(r.geminiTm, "proj", "s1", "plans", "parser.md"), "# Gemini plan\n\n1. Tokenize\n")
	r.hook(t, "gemini", geminiExit("AfterTool", "ok-gem", gem))
	r.session(t, "gemini:ok-gem", func(doc []byte) bool { return strings.Contains(string(doc), "1. Tokenize") })

	claudePlan := write(filepath.Join(r.claudePlans, "snug-otter.md"), "# Claude plan\n\n1. Limit\n")
	allowedPlan := write(filepath.Join(r.allowed, "docs", "plan.md"), "# Project plan\n\n1. Allowed\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i, p := range []string{claudePlan, allowedPlan} {
		wg.Go(func() {
			r.do(t, ctx, r.ingest, "POST", "/api/v1/hooks/claude", mustJSON(t, claudeExit(fmt.Sprintf("ok-%d", i), p)))
		})
	}
	r.pending(t, 2)
	doc := string(r.admin(t, "/api/v1/approvals?status=pending&limit=500"))
	for _, want := range []string{"1. Limit", "1. Allowed"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the pending requests do not show %q: %s", want, doc)
		}
	}
	cancel()
	wg.Wait()
}
