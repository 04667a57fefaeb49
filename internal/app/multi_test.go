package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/live/livetest"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
	"github.com/plandash/plandash/internal/web"
)

// instance is one plandash serving on a loopback port, on a database other instances share.
type instance struct {
	*App
	URL string
}

// startInstance opens and serves an instance on the database at db ("": SQLite in a temporary
// data directory) until the test ends, and waits until it hears the others.
func startInstance(t testing.TB, db string) *instance {
	t.Helper()
	data := t.TempDir()
	a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)},
		DataDir: data, Token: "tok", DB: db, PlansDir: data + "/plans"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		// A connection the client dialled but never used is "new" to the server, and graceful
		// shutdown waits 5 s before counting it idle: close them first.
		http.DefaultClient.CloseIdleConnections()
		cancel()
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	if a.Listener != nil { // PostgreSQL: wait until it hears the others
		select {
		case <-a.Listener.Ready():
		case <-time.After(20 * time.Second):
			t.Fatal("the instance never listened")
		}
	}
	return &instance{App: a, URL: "http://" + ln.Addr().String()}
}

// call sends an API request with the token and returns the status and body.
func (in *instance) call(t testing.TB, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, in.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// socket opens a page's socket on topic, caught up from the instance's sequence now, so nothing
// announced from here on is missed however fast it comes.
func (in *instance) socket(t testing.TB, topic string) *websocket.Conn {
	t.Helper()
	return in.dial(t, "/ws?topic="+topic+"&since="+strconv.FormatUint(in.Live.Seq(), 10))
}

// liveSocket is a page's socket with no catch-up: the server subscribes it before answering the
// upgrade, so every change published after this returns reaches it live (and counts its lag),
// never read back by a catch-up that ran after the change was committed.
func (in *instance) liveSocket(t testing.TB, topic string) *websocket.Conn {
	t.Helper()
	return in.dial(t, "/ws?topic="+topic)
}

func (in *instance) dial(t testing.TB, path string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(in.URL, "http")+path,
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer tok"}}})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(64 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// pages is what each test socket's page holds, for the edits frames make to it.
var pages sync.Map // *websocket.Conn → *livetest.Page

// frameWith reads frames until one whose HTML contains text arrives.
func frameWith(t testing.TB, c *websocket.Conn, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for a fragment with %q: %v", text, err)
		}
		p, _ := pages.LoadOrStore(c, &livetest.Page{})
		f, err := p.(*livetest.Page).Read(b)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(f.HTML, text) {
			return
		}
	}
}

func planLine(session, content string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + session +
		`","update":{"sessionUpdate":"plan","entries":[{"content":"` + content + `","priority":"high","status":"pending"}]}}}`
}

const submission = `{"id":"deploy","title":"Deploy","plan":{"type":"markdown","markdown":"# Ship it"},"timeout":"10m"}`

// TestThreeInstances: a plan ingested on A shows live on a page of B; a decision made on C wakes
// the agent long-polling A, and B's inbox shows it.
func TestThreeInstances(t *testing.T) {
	db := pgtest.URL(t)
	a, b, c := startInstance(t, db), startInstance(t, db), startInstance(t, db)

	page := b.socket(t, "session:s1")
	if code, body := a.call(t, "POST", "/api/v1/ingest", planLine("s1", "Build the thing")); code/100 != 2 {
		t.Fatalf("ingest on A: %d %s", code, body)
	}
	frameWith(t, page, "Build the thing")

	if code, body := a.call(t, "POST", "/api/v1/approvals", submission); code != http.StatusCreated {
		t.Fatalf("submit on A: %d %s", code, body)
	}
	inbox := b.socket(t, "approvals")
	type result struct {
		code int
		body []byte
	}
	waited := make(chan result, 1)
	go func() {
		// No t.Fatal here: the result goes back to the test's goroutine.
		req, _ := http.NewRequest("GET", a.URL+"/api/v1/approvals/deploy?wait=60s", nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			waited <- result{0, []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		waited <- result{resp.StatusCode, body}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for a.Gate.Waiting("deploy") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the long-poll never reached A's gate")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if code, body := c.call(t, "POST", "/api/v1/approvals/deploy/decision", `{"action":"approve","comment":"from C"}`); code != http.StatusOK {
		t.Fatalf("decide on C: %d %s", code, body)
	}
	select {
	case r := <-waited:
		var got struct{ Status string }
		if err := json.Unmarshal(r.body, &got); r.code != http.StatusOK || err != nil || got.Status != "approved" {
			t.Fatalf("the waiter on A got %d %s; want the approval", r.code, r.body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the decision on C never woke the waiter on A")
	}
	frameWith(t, inbox, "from C")
}

// TestConcurrentDecisionsOnTwoInstances: two people decide one request at once on different
// instances; exactly one decision wins, the other is told of it (409).
func TestConcurrentDecisionsOnTwoInstances(t *testing.T) {
	db := pgtest.URL(t)
	a, b := startInstance(t, db), startInstance(t, db)
	for round := range 5 {
		id := "r" + strconv.Itoa(round)
		sub := strings.Replace(submission, `"deploy"`, `"`+id+`"`, 1)
		if code, body := a.call(t, "POST", "/api/v1/approvals", sub); code != http.StatusCreated {
			t.Fatalf("submit: %d %s", code, body)
		}
		codes := make([]int, 2)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, in := range []*instance{a, b} {
			action := []string{"approve", "reject"}[i]
			wg.Go(func() {
				<-start
				req, _ := http.NewRequest("POST", in.URL+"/api/v1/approvals/"+id+"/decision", strings.NewReader(`{"action":"`+action+`","comment":"mine"}`))
				req.Header.Set("Authorization", "Bearer tok")
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return // codes[i] stays 0 and fails below
				}
				resp.Body.Close()
				codes[i] = resp.StatusCode
			})
		}
		close(start)
		wg.Wait()
		if !(codes[0] == 200 && codes[1] == 409 || codes[0] == 409 && codes[1] == 200) {
			t.Fatalf("round %d: decisions answered %v; want one 200 and one 409", round, codes)
		}
		ev, err := a.Gate.Audit(context.Background(), approval.AuditFilter{})
		if err != nil {
			t.Fatal(err)
		}
		decisions := 0
		for _, e := range ev {
			if e.RequestID == id && e.Event != approval.EventRequested {
				decisions++
			}
		}
		if decisions != 1 {
			t.Fatalf("round %d: %d decisions in the audit trail, want 1", round, decisions)
		}
	}
}

// TestPermissionAnsweredElsewhere: a proxy offers a permission request to A and long-polls A;
// a person answers it on B; the answer reaches the proxy, once.
func TestPermissionAnsweredElsewhere(t *testing.T) {
	db := pgtest.URL(t)
	a, b := startInstance(t, db), startInstance(t, db)
	offer := `{"stream":"st","id":7,"sessionId":"s1","params":{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"Edit main.go"},` +
		`"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"deny","name":"Deny","kind":"reject_once"}]}}`
	if code, body := a.call(t, "POST", "/api/v1/proxy/permissions", offer); code != http.StatusNoContent {
		t.Fatalf("offer on A: %d %s", code, body)
	}
	if code, body := b.call(t, "GET", "/api/v1/proxy/permissions", ""); code != 200 || !strings.Contains(string(body), "Edit main.go") {
		t.Fatalf("B lists %d %s; want A's request", code, body)
	}
	polled := make(chan []byte, 1)
	go func() {
		req, _ := http.NewRequest("GET", a.URL+"/api/v1/proxy/answers?stream=st&wait=60s", nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			polled <- []byte(err.Error())
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		polled <- body
	}()
	answer := `{"stream":"st","id":7,"outcome":{"outcome":"selected","optionId":"allow"}}`
	if code, body := b.call(t, "POST", "/api/v1/proxy/permissions/answer", answer); code != http.StatusAccepted {
		t.Fatalf("answer on B: %d %s", code, body)
	}
	if code, _ := a.call(t, "POST", "/api/v1/proxy/permissions/answer", answer); code != http.StatusConflict {
		t.Fatalf("a second answer on A: %d, want 409", code)
	}
	select {
	case body := <-polled:
		var got []struct {
			ID      json.RawMessage
			Outcome struct{ OptionID string }
		}
		if err := json.Unmarshal(body, &got); err != nil || len(got) != 1 || got[0].Outcome.OptionID != "allow" {
			t.Fatalf("the proxy polling A got %s; want B's answer", body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the answer on B never reached the proxy polling A")
	}
}

// TestReadyz: ready on SQLite and on PostgreSQL while the database answers; 503 once it is gone.
func TestReadyz(t *testing.T) {
	for name, db := range map[string]func(t *testing.T) string{
		"sqlite":   func(*testing.T) string { return "" },
		"postgres": func(t *testing.T) string { return pgtest.URL(t) },
	} {
		t.Run(name, func(t *testing.T) {
			a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)}, DataDir: t.TempDir(), Token: "tok", DB: db(t)})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(a.Server.Handler())
			defer srv.Close()
			probe := func() int {
				resp, err := http.Get(srv.URL + "/readyz")
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			if code := probe(); code != http.StatusOK {
				t.Fatalf("readyz = %d, want 200", code)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			if code := probe(); code != http.StatusServiceUnavailable {
				t.Fatalf("readyz with the database closed = %d, want 503", code)
			}
		})
	}
}
