package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
)

// api sends a JSON request with the token and returns the status and body.
func (ts *testServer) api(t testing.TB, method, path string, body any, hdr ...string) (int, []byte) {
	t.Helper()
	code, raw, err := ts.tryAPI(method, path, body, hdr...)
	if err != nil {
		t.Fatal(err)
	}
	return code, raw
}

// tryAPI is api for goroutines, which must not fail the test themselves: it returns the error.
func (ts *testServer) tryAPI(method, path string, body any, hdr ...string) (int, []byte, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: read the answer (%s): %w", method, path, resp.Status, err)
	}
	return resp.StatusCode, raw, nil
}

type apiApproval struct {
	approval.Request
	PageURL string `json:"pageUrl"`
}

type apiProblem struct {
	Problem
	Request *approval.Request `json:"request"`
}

func decodeAs[T any](t testing.TB, raw []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

const checklist = `{"title":"Refactor the parser","agent":"claude","sessionId":"s1","plan":{"type":"items","entries":[
	{"content":"Read the code","priority":"high","status":"pending"},{"content":"Change it","priority":"medium","status":"pending"},
	{"content":"Run the tests","priority":"low","status":"pending"}]}}`

// create submits body and returns the new request.
func (ts *testServer) create(t testing.TB, body string) approval.Request {
	t.Helper()
	code, raw := ts.api(t, "POST", "/api/v1/approvals", body)
	if code != http.StatusCreated {
		t.Fatalf("create answered %d: %s", code, raw)
	}
	return decodeAs[apiApproval](t, raw).Request
}

// waitForWaiter returns once a client is parked on the request, so a decision made next
// wakes it rather than being read at once.
func waitForWaiter(t *testing.T, ts *testServer, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for ts.srv.gate.Waiting(id) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no client started waiting")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestApprovalCreateAndLongPoll(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	code, raw := ts.api(t, "POST", "/api/v1/approvals", `{"id":"deploy-1",`+checklist[1:])
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, raw)
	}
	created := decodeAs[apiApproval](t, raw)
	if created.ID != "deploy-1" || created.Status != approval.Pending || !strings.HasSuffix(created.PageURL, "/approvals/deploy-1") {
		t.Fatalf("created = %+v", created)
	}
	// Submitting again with the same id is safe: the same request, 200.
	if code, raw := ts.api(t, "POST", "/api/v1/approvals", `{"id":"deploy-1",`+checklist[1:]); code != http.StatusOK || decodeAs[apiApproval](t, raw).ID != "deploy-1" {
		t.Fatalf("resubmit: %d %s", code, raw)
	}
	// A short wait ends with the request still pending.
	if code, raw := ts.api(t, "GET", "/api/v1/approvals/deploy-1?wait=20ms", nil); code != 200 || decodeAs[apiApproval](t, raw).Status != approval.Pending {
		t.Fatalf("short wait: %d %s", code, raw)
	}

	type result struct {
		code int
		raw  []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, raw, err := ts.tryAPI("GET", "/api/v1/approvals/deploy-1?wait=60s", nil)
		done <- result{code, raw, err}
	}()
	waitForWaiter(t, ts, "deploy-1")
	mod := `{"action":"modify","comment":"tests first","plan":{"type":"items","entries":[{"content":"Run the tests","priority":"high"},{"content":"Change it"}]}}`
	code, raw = ts.api(t, "POST", "/api/v1/approvals/deploy-1/decision", mod)
	if code != 200 {
		t.Fatalf("decide: %d %s", code, raw)
	}
	var res result
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the long poll did not wake after the decision")
	}
	if res.err != nil {
		t.Fatalf("long poll: %v", res.err)
	}
	got := decodeAs[apiApproval](t, res.raw)
	d := got.Decision
	if res.code != 200 || got.Status != approval.Modified || d == nil || d.By != "ann" || d.Comment != "tests first" {
		t.Fatalf("long poll woke with %d %s", res.code, res.raw)
	}
	if len(d.Plan.Entries) != 2 || d.Plan.Entries[0].Content != "Run the tests" || d.Plan.Entries[1].Status != "pending" {
		t.Fatalf("plan after the decision = %+v", d.Plan)
	}
	// The plan before is kept with the request.
	if len(got.Plan.Entries) != 3 {
		t.Fatalf("plan before = %+v", got.Plan)
	}
}

func TestApprovalConflictsAndBadInput(t *testing.T) {
	clk := &fakeClock{t: time.Now()}
	ts := newTestServer(t, testConfig{User: "ann", Now: clk.Now})
	r := ts.create(t, checklist)
	path := "/api/v1/approvals/" + r.ID + "/decision"

	var wg sync.WaitGroup
	codes := make(chan int, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, raw, err := ts.tryAPI("POST", path, `{"action":"reject","comment":"no"}`)
			if err != nil {
				t.Errorf("concurrent decision: %v", err)
			} else if code != 200 && code != 409 {
				t.Errorf("concurrent decision answered %d: %s", code, raw)
			}
			codes <- code
		}()
	}
	wg.Wait()
	close(codes)
	n := map[int]int{}
	for c := range codes {
		n[c]++
	}
	if n[200] != 1 || n[409] != 9 {
		t.Fatalf("concurrent decisions answered %v, want one 200 and nine 409", n)
	}
	code, raw := ts.api(t, "POST", path, `{"action":"approve"}`)
	p := decodeAs[apiProblem](t, raw)
	if code != 409 || p.Request == nil || p.Request.Status != approval.Rejected || p.Request.Decision.By != "ann" || !strings.Contains(p.Detail, "already rejected by ann") {
		t.Fatalf("late decision: %d %s", code, raw)
	}

	// An expired request cannot be decided: 409 with the default outcome.
	late := ts.create(t, `{"title":"t","timeout":"1m","default":"approve","plan":{"type":"markdown","markdown":"# Do it"}}`)
	clk.Add(2 * time.Minute)
	code, raw = ts.api(t, "POST", "/api/v1/approvals/"+late.ID+"/decision", `{"action":"reject","comment":"too late?"}`)
	p = decodeAs[apiProblem](t, raw)
	if code != 409 || p.Request == nil || p.Request.Status != approval.Approved || !p.Request.Decision.Expired || !strings.Contains(p.Detail, "default outcome") {
		t.Fatalf("decision after the deadline: %d %s", code, raw)
	}

	tests := []struct {
		name, method, path, body string
		code                     int
		detail                   string
	}{
		{"unknown id", "GET", "/api/v1/approvals/nope", "", 404, "no approval request"},
		{"unknown id decision", "POST", "/api/v1/approvals/nope/decision", `{"action":"approve"}`, 404, "no approval request"},
		{"not json", "POST", "/api/v1/approvals", `{"title":`, 400, "not the JSON expected"},
		{"invalid plan", "POST", "/api/v1/approvals", `{"title":"t","plan":{"type":"items","entries":[{"content":""}]}}`, 400, "entry 1 has no text"},
		{"invalid dag", "POST", "/api/v1/approvals", `{"title":"t","plan":{"type":"dag","calls":[{"_tool":"a","_id":"x","q":"†state.nothing"}]}}`, 400, "not valid"},
		{"oversize plan", "POST", "/api/v1/approvals", `{"title":"t","plan":{"markdown":"` + strings.Repeat("x", approval.MaxPlanBytes) + `"}}`, 413, "limit is"},
		{"oversize body", "POST", "/api/v1/approvals", `{"title":"` + strings.Repeat("x", 2*approval.MaxPlanBytes) + `"}`, 413, "larger than"},
		{"reject without reason", "POST", "/api/v1/approvals/" + ts.create(t, checklist).ID + "/decision", `{"action":"reject"}`, 400, "needs a reason"},
		{"oversize comment", "POST", "/api/v1/approvals/" + ts.create(t, checklist).ID + "/decision", `{"action":"approve","comment":"` + strings.Repeat("x", approval.MaxComment+1) + `"}`, 413, "limit is 4000"},
		{"bad wait", "GET", "/api/v1/approvals/" + r.ID + "?wait=soon", "", 400, "wait must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body any
			if tt.body != "" {
				body = tt.body
			}
			code, raw := ts.api(t, tt.method, tt.path, body)
			p := decodeAs[apiProblem](t, raw)
			if code != tt.code || p.Status != tt.code || !strings.Contains(p.Detail, tt.detail) {
				t.Fatalf("%d %s; want %d with %q", code, raw, tt.code, tt.detail)
			}
		})
	}
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestApprovalAuthAndCSRF(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	r := ts.create(t, checklist)
	// No token: 401 with a problem body for the API, the locked page for pages.
	resp, err := http.Post(ts.URL+"/api/v1/approvals", "application/json", strings.NewReader(checklist))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("create without token: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if code, _ := ts.page(t, "/approvals"); code != 200 {
		t.Fatalf("inbox with token: %d", code)
	}
	anon, _ := http.Get(ts.URL + "/approvals/" + r.ID)
	anon.Body.Close()
	if anon.StatusCode != 401 {
		t.Fatalf("page without cookie: %d", anon.StatusCode)
	}

	// A cross-site POST with the browser's cookie is refused, by the API and by the page form.
	for _, path := range []string{"/api/v1/approvals/" + r.ID + "/decision", "/approvals/" + r.ID + "/decide"} {
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader("action=approve"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Origin", "https://evil.example")
		resp, err := ts.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("cross-site POST %s: %d", path, resp.StatusCode)
		}
	}
	if got, _ := ts.srv.gate.Get(t.Context(), r.ID); got.Decided() {
		t.Fatal("a cross-site request decided")
	}
}

// form posts a page form as the browser would, with the session cookie.
func (ts *testServer) form(t *testing.T, path string, v url.Values) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	c := *ts.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestApprovalUserHeader(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann", UserHeader: "X-Forwarded-User"})
	r := ts.create(t, checklist)
	code, raw := ts.api(t, "POST", "/api/v1/approvals/"+r.ID+"/decision", `{"action":"approve"}`, "X-Forwarded-User", "carol")
	if code != 200 || decodeAs[apiApproval](t, raw).Decision.By != "carol" {
		t.Fatalf("decision behind the proxy: %d %s", code, raw)
	}
}

func TestApprovalRulesAndAuditAPI(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	code, raw := ts.api(t, "POST", "/api/v1/approvals/rules", `{"agent":"linter"}`)
	if code != 201 {
		t.Fatalf("add rule: %d %s", code, raw)
	}
	rule := decodeAs[approval.Rule](t, raw)
	auto := ts.create(t, `{"title":"lint","agent":"linter","sessionId":"s9","plan":{"entries":[{"content":"Run gofmt"}]}}`)
	if auto.Status != approval.Approved || auto.Decision.Rule != rule.ID {
		t.Fatalf("auto-approval: %+v", auto)
	}
	ts.create(t, checklist)
	if code, raw := ts.api(t, "DELETE", "/api/v1/approvals/rules/"+rule.ID, nil); code != 200 {
		t.Fatalf("revoke: %d %s", code, raw)
	}
	if code, _ := ts.api(t, "DELETE", "/api/v1/approvals/rules/"+rule.ID, nil); code != 409 {
		t.Fatalf("revoke twice: %d", code)
	}
	_, raw = ts.api(t, "GET", "/api/v1/approvals/audit?agent=linter", nil)
	ev := decodeAs[struct{ Events []approval.AuditEvent }](t, raw).Events
	var kinds []string
	for _, e := range ev {
		kinds = append(kinds, e.Event)
	}
	if strings.Join(kinds, ",") != "rule-revoked,auto-approved,requested,rule-added" {
		t.Fatalf("audit for the linter = %v", kinds)
	}
	_, raw = ts.api(t, "GET", "/api/v1/approvals/audit?session=s1", nil)
	if ev := decodeAs[struct{ Events []approval.AuditEvent }](t, raw).Events; len(ev) != 1 || ev[0].Agent != "claude" {
		t.Fatalf("audit for session s1 = %+v", ev)
	}
}
