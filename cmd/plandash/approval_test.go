package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/web"
)

func TestApprovalRequestCommand(t *testing.T) {
	srv, err := app.Open(context.Background(), app.Config{Config: web.Config{User: "ann", Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, DataDir: t.TempDir(), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Server.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close() })
	call := func(method, path, body string) []byte {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	// pendingID waits until the command has submitted its request.
	pendingID := func() string {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			var list struct{ Requests []struct{ ID string } }
			if err := json.Unmarshal(call("GET", "/api/v1/approvals", ""), &list); err != nil {
				t.Fatal(err)
			}
			if len(list.Requests) == 1 {
				return list.Requests[0].ID
			}
		}
		t.Fatal("the command submitted nothing")
		return ""
	}
	file := filepath.Join(t.TempDir(), "deploy.json")
	if err := os.WriteFile(file, []byte(`{"type":"items","entries":[{"content":"Build"},{"content":"Ship"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	runCmd := func() (chan error, *bytes.Buffer) {
		var out bytes.Buffer
		done := make(chan error, 1)
		go func() {
			done <- run(context.Background(), []string{"approval", "request", "--server", ts.URL, "--token", "tok", file},
				func(string) string { return "" }, strings.NewReader(""), &out, io.Discard)
		}()
		return done, &out
	}

	done, out := runCmd()
	id := pendingID()
	call("POST", "/api/v1/approvals/"+id+"/decision", `{"action":"reject","comment":"not on Friday"}`)
	var ec exitCode
	if err := receive(t, done, "exit of the rejected request"); !errors.As(err, &ec) || ec != 3 {
		t.Fatalf("rejected: err = %v, want exit 3", err)
	}
	if s := out.String(); !strings.HasPrefix(s, "rejected by ann") || !strings.Contains(s, "not on Friday") {
		t.Fatalf("output:\n%s", s)
	}

	done, out = runCmd()
	pendingID()
	var list struct{ Requests []struct{ ID, Title string } }
	if err := json.Unmarshal(call("GET", "/api/v1/approvals", ""), &list); err != nil {
		t.Fatal(err)
	}
	if list.Requests[0].Title != "deploy" {
		t.Fatalf("a bare plan's request is titled %q, want the file's name", list.Requests[0].Title)
	}
	call("POST", "/api/v1/approvals/"+list.Requests[0].ID+"/decision", `{"action":"modify","plan":{"entries":[{"content":"Build"},{"content":"Test"},{"content":"Ship"}]}}`)
	if err := receive(t, done, "exit of the approved request"); err != nil {
		t.Fatalf("modified: %v", err)
	}
	if s := out.String(); !strings.HasPrefix(s, "modified by ann") || !strings.Contains(s, "[pending] Test (medium)") {
		t.Fatalf("output:\n%s", s)
	}

	// A request whose own dialog decides past its deadline (then) ends with that, outcome not
	// known: not an approval, so not exit 0.
	if err := os.WriteFile(file, []byte(`{"title":"t","then":"the terminal decides","timeout":"1s","plan":{"type":"items","entries":[{"content":"Build"}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	done, out = runCmd()
	if err := receive(t, done, "exit of the request the terminal decides"); !errors.As(err, &ec) || ec != 3 {
		t.Fatalf("handed to the terminal: err = %v, want exit 3", err)
	}
	if s := out.String(); !strings.HasPrefix(s, "the terminal decides — outcome not known yet") {
		t.Fatalf("output:\n%s", s)
	}
}

// TestMCPStdioApproval: `plandash mcp` on stdio offers request_plan_approval and forwards it to
// the running server's gate.
func TestMCPStdioApproval(t *testing.T) {
	srv, err := app.Open(context.Background(), app.Config{Config: web.Config{User: "ann", Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, DataDir: t.TempDir(), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Server.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	go run(ctx, []string{"mcp", "--server", ts.URL, "--token", "tok", "--plans-dir", t.TempDir()},
		func(string) string { return "" }, inR, outW, io.Discard)
	client := mcp.NewClient(&mcp.Implementation{Name: "ide", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request_plan_approval", Arguments: map[string]any{
			"title": "Ship it", "plan": map[string]any{"type": "markdown", "markdown": "# Ship"}}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	var id string
	for id == "" && ctx.Err() == nil {
		req, _ := http.NewRequest("GET", ts.URL+"/api/v1/approvals", nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var list struct{ Requests []struct{ ID string } }
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if len(list.Requests) == 1 {
			id = list.Requests[0].ID
		}
		time.Sleep(5 * time.Millisecond)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/api/v1/approvals/"+id+"/decision", strings.NewReader(`{"action":"reject","comment":"not today"}`))
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("decide: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("decide answered %s", resp.Status)
	}
	res := receive(t, done, "result")
	if res == nil {
		t.Fatal("the tool call failed (see the error above)")
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(string(b), `"decision":"rejected"`) || !strings.Contains(string(b), `"comment":"not today"`) {
		t.Fatalf("tool result over stdio: %s %+v", b, res)
	}
}

// TestApprovalRequestAnswerLost: the server takes the request but its answer is lost on the way
// (a connection cut, a restart). The command sends it again under the id it chose, gets the
// same request back, and waits on it: one request, not two.
func TestApprovalRequestAnswerLost(t *testing.T) {
	srv, err := app.Open(context.Background(), app.Config{Config: web.Config{User: "ann", Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, DataDir: t.TempDir(), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.Server.Handler()
	var cut atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/v1/approvals" && cut.CompareAndSwap(false, true) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != http.StatusCreated {
				t.Errorf("the first submission: %d %s", rec.Code, rec.Body)
			}
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close()
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); srv.Close() })
	pending := func() []string {
		req, _ := http.NewRequest("GET", ts.URL+"/api/v1/approvals", nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var list struct{ Requests []struct{ ID string } }
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range list.Requests {
			ids = append(ids, r.ID)
		}
		return ids
	}
	file := filepath.Join(t.TempDir(), "deploy.json")
	if err := os.WriteFile(file, []byte(`{"type":"items","entries":[{"content":"Ship"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"approval", "request", "--server", ts.URL, "--token", "tok", file},
			func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	}()
	// The command says it waits only once it holds the request: after the retry.
	for deadline := time.Now().Add(testWait); !strings.Contains(errOut.String(), "Waiting for a decision"); time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("the command ended before it held its request: %v\n%s", err, errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command never held its request:\n%s", errOut.String())
		}
	}
	ids := pending()
	if len(ids) != 1 || !cut.Load() {
		t.Fatalf("pending = %v (answer cut: %v); want the one request", ids, cut.Load())
	}
	req, _ := http.NewRequest("POST", ts.URL+"/api/v1/approvals/"+ids[0]+"/decision", strings.NewReader(`{"action":"approve"}`))
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := receive(t, done, "exit of the approved request"); err != nil || !strings.HasPrefix(out.String(), "approved by ann") {
		t.Fatalf("approved: %v %q\n%s", err, out.String(), errOut.String())
	}
}
