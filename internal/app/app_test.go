package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/registry"
	"github.com/plandash/plandash/internal/web"
)

// TestAppServes: the assembled application serves, follows Codex's rollout files into the same
// sessions ACP traffic makes, answers every agent's hook route, and on shutdown stops what it
// started and closes the database.
func TestAppServes(t *testing.T) {
	data, codexDir := t.TempDir(), t.TempDir()
	day := filepath.Join(codexDir, "2026", "11", "23")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	rollout, err := os.ReadFile("../agents/codex/testdata/exec_update_plan.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(day, "rollout-2026-11-23T23-05-01-01a20aa7-d7b6-7ff1-af70-8cdc9cdb7757.jsonl"), rollout, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)},
		DataDir: data, Token: "tok", PlansDir: filepath.Join(data, "plans"), Discover: map[string]string{"codex": codexDir}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	get := func(path string) (int, []byte) {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Fatalf("healthz %d", code)
	}
	id := url.PathEscape("codex:01a20aa7-d7b6-7ff1-af70-8cdc9cdb7757")
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, body := get("/api/v1/sessions/" + id)
		var d struct{ Plans []struct{ ID string } }
		if code == 200 && json.Unmarshal(body, &d) == nil && len(d.Plans) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Codex session never appeared: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	want := map[string]int{"cursor": 404}
	for _, name := range registry.Names(false) {
		want[name] = 400
	}
	for agent, want := range want {
		req, _ := http.NewRequest("POST", base+"/api/v1/hooks/"+agent, strings.NewReader("{not json"))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("POST /api/v1/hooks/%s with garbage: %d, want %d", agent, resp.StatusCode, want)
		}
	}
	cancel()
	select {
	case err := <-served:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
	if _, err := a.DB.Plans().Session(context.Background(), "x"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("the database is still open after Serve returned: %v", err)
	}
}
