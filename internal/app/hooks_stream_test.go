package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenCodeStreamReadsNoOutsideFile: an OpenCode server that `serve --opencode URL`
// follows is as much outside input as a hook. Its stream announces sessions in directory "/"
// and plan_exit questions naming each target: every question reaches the gate without the
// file's content, and a plan under --allow-root still shows.
func TestOpenCodeStreamReadsNoOutsideFile(t *testing.T) {
	var events []string
	ready := make(chan struct{}) // closed once events is written
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/event" {
			http.NotFound(w, r)
			return
		}
		select {
		case <-ready:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the stream stays open, as OpenCode's does
	}))
	// The targets exist only once the rig is built; the stream sends nothing before that.
	t.Cleanup(hs.Close) // cleanups run last first: this one after plandash has stopped watching
	r := startHookRig(t, 0, hs.URL)
	targets, fifos := r.plant(t)
	good := filepath.Join(r.allowed, "plans", "good.md")
	if err := os.MkdirAll(filepath.Dir(good), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, []byte("# Good plan\n\n1. Ship from the stream\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := append(append(append([]string{}, targets.paths...), fifos...), good)
	for i, name := range names {
		sid := fmt.Sprintf("ses_s%d", i)
		created, _ := json.Marshal(map[string]any{"type": "session.created", "properties": map[string]any{
			"info": map[string]any{"id": sid, "directory": "/", "title": "attack"}}})
		asked, _ := json.Marshal(openCodeExit(sid, fmt.Sprintf("que_s%d", i), name))
		events = append(events, string(created), string(asked))
	}
	close(ready)
	r.pending(t, len(names))
	doc := r.admin(t, "/api/v1/approvals?status=pending&limit=500")
	targets.noSecret(t, "the pending requests", doc)
	if !strings.Contains(string(doc), "1. Ship from the stream") {
		t.Errorf("the plan inside the allowed root is not shown: %s", doc)
	}
	for i := range names {
		targets.noSecret(t, "opencode session", r.session(t, fmt.Sprintf("opencode:ses_s%d", i), nil))
	}
}

// TestHookOpenCodePlanFromPlugin: the plugin sends the plan it read inside OpenCode; the server
// shows that text and reads no file, even where the question names one it may not read.
func TestHookOpenCodePlanFromPlugin(t *testing.T) {
	r := startHookRig(t, 0)
	ev := openCodeExit("ses_p", "que_p", "/w/project/.opencode/plans/p.md")
	ev["plan"], ev["planPath"] = "# From the plugin\n\n1. Sent along\n", "/w/project/.opencode/plans/p.md"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.do(t, ctx, r.ingest, "POST", "/api/v1/hooks/opencode", mustJSON(t, ev))
	}()
	r.pending(t, 1)
	if doc := r.admin(t, "/api/v1/approvals?status=pending"); !strings.Contains(string(doc), "1. Sent along") {
		t.Errorf("the plugin's plan is not shown: %s", doc)
	}
	cancel()
	<-done
}
