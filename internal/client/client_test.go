package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/testkit"
	"github.com/plandash/plandash/internal/web"
)

const token = "test-token"

// server is the real plandash server on a real socket, in front of which a test may put a
// handler of its own (to answer 503 once, say); front sees every request first and returns true
// when it answered.
type server struct {
	*httptest.Server
	web   *app.App
	front atomic.Pointer[func(http.ResponseWriter, *http.Request) bool]
	hits  atomic.Int32
}

func newServer(t *testing.T) *server {
	t.Helper()
	srv, err := app.Open(context.Background(), app.Config{Config: web.Config{User: "ann", Log: slog.New(slog.DiscardHandler)}, DataDir: t.TempDir(), Token: token})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{web: srv}
	real := srv.Server.Handler()
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if f := s.front.Load(); f != nil && (*f)(w, r) {
			return
		}
		real.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); srv.Close() })
	return s
}

// answerFirst makes the front answer the first n requests with f, then step aside.
func (s *server) answerFirst(n int32, f func(http.ResponseWriter, *http.Request)) {
	var seen atomic.Int32
	front := func(w http.ResponseWriter, r *http.Request) bool {
		if seen.Add(1) > n {
			return false
		}
		f(w, r)
		return true
	}
	s.front.Store(&front)
}

// fast retries without waiting long, so tests stay quick.
var fast = client.WithRetry(client.Retry{Attempts: 4, MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestHealth(t *testing.T) {
	s := newServer(t)
	h, err := client.New(s.URL, "").Health(ctxT(t)) // no token needed
	if err != nil || h.Status != "ok" {
		t.Fatalf("Health = %+v, %v", h, err)
	}
}

const transcript = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"real-agent","version":"1"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[{"content":"Build","priority":"high","status":"pending"}]}}}
`

func TestIngest(t *testing.T) {
	s := newServer(t)
	c := client.New(s.URL, token)
	ctx := ctxT(t)
	for _, tc := range []struct {
		name        string
		body        string
		wantApplied int
		wantErrors  int
		wantStatus  int // of the *Error; 0 for none
	}{
		{"a transcript", transcript, 3, 0, 0},
		{"one bad line among good ones", "not json\n" + transcript, 3, 1, 0},
		{"nothing applicable", "not json\n", 0, 1, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.Ingest(ctx, strings.NewReader(tc.body), client.IngestOptions{Stream: "st-" + tc.name, Agent: "cmd"})
			if got := client.StatusOf(err); got != tc.wantStatus || tc.wantStatus == 0 && err != nil {
				t.Fatalf("err = %v, want status %d", err, tc.wantStatus)
			}
			if res.Applied != tc.wantApplied || len(res.Errors) != tc.wantErrors {
				t.Errorf("result %+v, want %d applied, %d errors", res, tc.wantApplied, tc.wantErrors)
			}
			if tc.wantErrors > 0 && res.Errors[0].Line != 1 {
				t.Errorf("the error is on line %d, want 1", res.Errors[0].Line)
			}
		})
	}
	sess, err := s.web.Plans.SessionOnly(ctx, "s1")
	if err != nil || sess.Agent != "real-agent" {
		t.Errorf("the session as stored: %+v, %v", sess, err)
	}
}

func TestApprovals(t *testing.T) {
	s := newServer(t)
	c := client.New(s.URL, token, fast)
	ctx := ctxT(t)
	sub := approval.Submission{ID: "deploy-1", Title: "Deploy", Plan: approval.PlanBody{Type: "markdown", Markdown: "# Ship"}}

	a, created, err := c.CreateApproval(ctx, sub)
	if err != nil || !created || a.ID != "deploy-1" || a.Status != "pending" || a.Decided() || !strings.HasSuffix(a.PageURL, "/approvals/deploy-1") {
		t.Fatalf("CreateApproval = %+v, %v, %v", a, created, err)
	}
	if again, created, err := c.CreateApproval(ctx, sub); err != nil || created || again.ID != a.ID {
		t.Fatalf("the same id again = %+v, created %v, %v; want the same request", again, created, err)
	}
	if n, err := c.ApprovalCount(ctx); err != nil || n.Pending != 1 {
		t.Fatalf("ApprovalCount = %+v, %v", n, err)
	}
	if got, err := c.WaitApproval(ctx, a.ID, 20*time.Millisecond); err != nil || got.Decided() {
		t.Fatalf("a wait nobody answered = %+v, %v; want it pending", got, err)
	}

	waited := make(chan client.Approval, 1)
	go func() {
		got, err := c.WaitApproval(ctx, a.ID, time.Minute)
		if err != nil {
			t.Error(err)
		}
		waited <- got
	}()
	decided, err := c.DecideApproval(ctx, a.ID, approval.DecisionInput{Action: "reject", Comment: "not on Friday", Key: "k1"})
	if err != nil || decided.Status != "rejected" {
		t.Fatalf("DecideApproval = %+v, %v", decided, err)
	}
	got := testkit.Recv(t, waited, 30*time.Second, "end of the wait")
	var req approval.Request
	if err := got.Decode(&req); err != nil || req.Status != approval.Rejected || req.Decision == nil || req.Decision.Comment != "not on Friday" || req.Decision.By != "ann" {
		t.Fatalf("the waiter got %+v (%v)", req, err)
	}
	if again, err := c.DecideApproval(ctx, a.ID, approval.DecisionInput{Action: "reject", Comment: "not on Friday", Key: "k1"}); err != nil || again.Status != "rejected" {
		t.Errorf("the same decision with its key again = %+v, %v; want the winning one", again, err)
	}
	_, err = c.DecideApproval(ctx, a.ID, approval.DecisionInput{Action: "approve"})
	var e *client.Error
	if !errors.As(err, &e) || e.Status != http.StatusConflict || !strings.Contains(string(e.Body), `"rejected"`) {
		t.Errorf("a late decision: %v; want a 409 carrying the winning decision", err)
	}
	if got, err := c.Approval(ctx, a.ID); err != nil || got.Status != "rejected" {
		t.Errorf("Approval = %+v, %v", got, err)
	}
	if n, err := c.ApprovalCount(ctx); err != nil || n.Pending != 0 {
		t.Errorf("ApprovalCount after the decision = %+v, %v", n, err)
	}
}

func TestPermissions(t *testing.T) {
	s := newServer(t)
	c := client.New(s.URL, token, fast)
	ctx := ctxT(t)
	id := json.RawMessage(`"p-1"`)
	params := json.RawMessage(`{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"Edit"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}`)
	if err := c.OfferPermission(ctx, client.PermissionOffer{Stream: "st", ID: id, SessionID: "s1", Params: params, InIDE: true}); err != nil {
		t.Fatal(err)
	}
	list, err := c.Permissions(ctx)
	if err != nil || len(list) != 1 || list[0].Stream != "st" || string(list[0].ID) != `"p-1"` || !list[0].InIDE || list[0].Answered {
		t.Fatalf("Permissions = %+v, %v", list, err)
	}
	if got, err := c.PermissionAnswers(ctx, "st", 10*time.Millisecond); err != nil || len(got) != 0 {
		t.Fatalf("answers before anyone answered = %+v, %v", got, err)
	}
	polled := make(chan []client.PermissionAnswer, 1)
	go func() {
		got, err := c.PermissionAnswers(ctx, "st", time.Minute)
		if err != nil {
			t.Error(err)
		}
		polled <- got
	}()
	if err := c.AnswerPermission(ctx, "st", id, client.Outcome{Outcome: "selected", OptionID: "nope"}); client.StatusOf(err) != http.StatusBadRequest {
		t.Errorf("an option never offered: %v, want 400", err)
	}
	if err := c.AnswerPermission(ctx, "st", id, client.Outcome{Outcome: "selected", OptionID: "allow"}); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Recv(t, polled, 30*time.Second, "poll result"); len(got) != 1 || string(got[0].ID) != `"p-1"` || got[0].Outcome.OptionID != "allow" || got[0].By != "ann" {
		t.Fatalf("the proxy's poll got %+v", got)
	}
	if err := c.AnswerPermission(ctx, "st", id, client.Outcome{Outcome: "cancelled"}); client.StatusOf(err) != http.StatusConflict {
		t.Errorf("a second answer: %v, want 409", err)
	}
	end := client.PermissionEnd{Stream: "st", ID: id, By: "dashboard", Outcome: &client.Outcome{Outcome: "selected", OptionID: "allow"}}
	if err := c.EndPermission(ctx, end); err != nil {
		t.Fatal(err)
	}
	list, err = c.Permissions(ctx)
	if err != nil || len(list) != 1 || list[0].ResolvedBy != "dashboard" || list[0].Outcome == nil || list[0].Outcome.OptionID != "allow" {
		t.Errorf("after the end: %+v, %v", list, err)
	}
}

func TestErrors(t *testing.T) {
	s := newServer(t)
	ctx := ctxT(t)
	good := client.New(s.URL, token)
	for _, tc := range []struct {
		name       string
		do         func() error
		status     int
		title      string
		inDetail   string
		inMessage  []string
		retryAfter time.Duration
	}{
		{"wrong token", func() error { _, err := client.New(s.URL, "nope").ApprovalCount(ctx); return err },
			401, "Unauthorized", "missing or wrong token", []string{"GET /api/v1/approvals/count at " + s.URL, "401 Unauthorized"}, -1},
		{"no such request", func() error { _, err := good.Approval(ctx, "nope"); return err },
			404, "Not Found", "nope", []string{"GET /api/v1/approvals/nope", "404"}, -1},
		{"an invalid submission", func() error { _, _, err := good.CreateApproval(ctx, map[string]any{"title": "x"}); return err },
			400, "Bad Request", "plan", []string{"POST /api/v1/approvals", "400 Bad Request: "}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			var e *client.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %#v, want *client.Error", err)
			}
			if e.Status != tc.status || e.Title != tc.title || !strings.Contains(e.Detail, tc.inDetail) || e.RetryAfter != tc.retryAfter {
				t.Errorf("error %+v", e)
			}
			for _, want := range tc.inMessage {
				if !strings.Contains(e.Error(), want) {
					t.Errorf("message %q does not say %q", e.Error(), want)
				}
			}
		})
	}
}

// TestErrorWithoutProblemBody is a reverse proxy's answer: not a problem document, so the start
// of the body, cut short, is the detail.
func TestErrorWithoutProblemBody(t *testing.T) {
	s := newServer(t)
	s.answerFirst(1, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html>\n<h1>502 Bad Gateway</h1>"+strings.Repeat("x", 1<<20))
	})
	_, err := client.New(s.URL, token).ApprovalCount(ctxT(t))
	var e *client.Error
	if !errors.As(err, &e) || e.Status != 502 || e.Title != "Bad Gateway" || !strings.HasPrefix(e.Detail, "<html> <h1>502") || len(e.Detail) > 400 || len(e.Body) > 64<<10 {
		t.Fatalf("err = %v", err)
	}
}
