package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/cascadia"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/web"
	"golang.org/x/net/html"
)

// notifyApp is a served application whose one notification target is a loopback webhook
// receiver; its clock is the test's.
type notifyApp struct {
	*App
	base  string
	hooks chan notify.WebhookBody
	mu    sync.Mutex
	now   time.Time
}

func (n *notifyApp) Now() time.Time      { n.mu.Lock(); defer n.mu.Unlock(); return n.now }
func (n *notifyApp) add(d time.Duration) { n.mu.Lock(); n.now = n.now.Add(d); n.mu.Unlock() }

func serveNotify(t *testing.T) *notifyApp {
	t.Helper()
	n := &notifyApp{hooks: make(chan notify.WebhookBody, 10), now: time.Now().UTC()}
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b notify.WebhookBody
		json.NewDecoder(r.Body).Decode(&b)
		n.hooks <- b
	}))
	t.Cleanup(rc.Close)
	target, err := notify.ParseFlag("webhook+"+rc.URL+"/hook#secret=s", 1)
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler), User: "ann"},
		DataDir: data, Token: "tok", PlansDir: data + "/plans", Now: n.Now, Notify: []notify.Target{target}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	n.App, n.base = a, "http://"+ln.Addr().String()
	return n
}

// submit asks for approval of a short plan, as an agent does, and returns the request's id.
func (n *notifyApp) submit(t *testing.T, title string) string {
	t.Helper()
	body := `{"title":"` + title + `","agent":"claude","timeout":"48h","plan":{"type":"markdown","markdown":"1. read\n2. write"}}`
	req, _ := http.NewRequest("POST", n.base+"/api/v1/approvals", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&r)
	if resp.StatusCode/100 != 2 || r.ID == "" {
		t.Fatalf("submit: %d", resp.StatusCode)
	}
	return r.ID
}

// links waits for the webhook announcing the wait and returns its answer links by action.
func (n *notifyApp) links(t *testing.T, waitID string) map[string]string {
	t.Helper()
	for {
		select {
		case b := <-n.hooks:
			if b.Event != "wait.began" || len(b.Waits) != 1 || b.Waits[0].ID != waitID {
				continue
			}
			raw, _ := json.Marshal(b.Links)
			var ls map[string][]map[string]string
			json.Unmarshal(raw, &ls)
			out := map[string]string{}
			for _, l := range ls[waitID] {
				out[l["action"]] = l["url"]
			}
			return out
		case <-time.After(15 * time.Second):
			t.Fatalf("no webhook announced %s", waitID)
		}
	}
}

// page is one answer-link page as a person (or attacker) sees it.
type page struct {
	code            int
	state, headline string
	message         string
}

// do sends a request with no token and no cookie, as from a phone.
func do(t *testing.T, method, u string, form url.Values, hdr map[string]string) page {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, u, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := html.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	p := page{code: resp.StatusCode}
	if n := cascadia.Query(doc, cascadia.MustCompile(`[data-testid="answer-link"]`)); n != nil {
		for _, a := range n.Attr {
			if a.Key == "data-state" {
				p.state = a.Val
			}
		}
	}
	p.headline = text(cascadia.Query(doc, cascadia.MustCompile(`[data-testid="answer-headline"]`)))
	p.message = text(cascadia.Query(doc, cascadia.MustCompile(`[data-testid="answer-message"], [data-testid="error-message"]`)))
	return p
}

func text(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// TestCapabilityLinks: a link from a notification answers its one wait with its one action,
// once, without the token or a cookie; a GET never decides; every misuse gets a page saying
// why, and changes nothing.
func TestCapabilityLinks(t *testing.T) {
	n := serveNotify(t)
	ctx := context.Background()
	id := n.submit(t, "Refactor the parser")
	links := n.links(t, "plan-"+id)
	approve, reject := links["approve"], links["reject"]
	if !strings.HasPrefix(approve, n.base+notify.LinkPath) || !strings.HasPrefix(reject, n.base+notify.LinkPath) {
		t.Fatalf("links = %v", links)
	}
	pending := func() bool {
		r, err := n.Gate.Get(ctx, id)
		return err == nil && !r.Decided()
	}

	if p := do(t, "GET", approve, nil, nil); p.code != 200 || p.state != "confirm" || !strings.Contains(p.headline, "Approve") || !pending() {
		t.Fatalf("GET = %+v; want the confirmation page, nothing decided", p)
	}
	if p := do(t, "POST", approve, url.Values{"action": {"reject"}}, nil); p.code != 409 || p.state != "refused" || !strings.Contains(p.message, "only Approve") || !pending() {
		t.Fatalf("another action = %+v; want refused, nothing decided", p)
	}
	if p := do(t, "POST", approve, url.Values{"wait": {"plan-other"}}, nil); p.code != 409 || !strings.Contains(p.message, "another wait") || !pending() {
		t.Fatalf("another wait = %+v; want refused, nothing decided", p)
	}
	if p := do(t, "POST", approve, url.Values{"action": {"approve"}}, map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}); p.code != 403 || !pending() {
		t.Fatalf("cross-site POST = %+v; want 403, nothing decided", p)
	}
	if p := do(t, "POST", n.base+notify.LinkPath+"not-a-token", url.Values{"action": {"approve"}}, nil); p.code != 404 || !pending() {
		t.Fatalf("unknown token = %+v; want 404", p)
	}

	p := do(t, "POST", approve, url.Values{"wait": {"plan-" + id}, "action": {"approve"}}, map[string]string{"Origin": n.base, "Sec-Fetch-Site": "same-origin"})
	if p.code != 200 || p.state != "done" || !strings.Contains(p.headline, "approved") || !strings.Contains(p.headline, "from a webhook") {
		t.Fatalf("POST = %+v; want it approved, from a webhook", p)
	}
	r, _ := n.Gate.Get(ctx, id)
	if r.Status != "approved" || r.Decision.By != "ann from a webhook" {
		t.Fatalf("request = %s by %q", r.Status, r.Decision.By)
	}
	audit, err := n.Gate.Audit(ctx, approvalAuditFilter(id))
	if err != nil || !auditHas(audit, "ann from a webhook") {
		t.Fatalf("audit = %+v, %v; want the decision from a webhook", audit, err)
	}

	if p := do(t, "POST", approve, url.Values{"action": {"approve"}}, nil); p.code != 409 || !strings.Contains(p.message, "already used") {
		t.Fatalf("used twice = %+v", p)
	}
	if p := do(t, "POST", reject, url.Values{"action": {"reject"}}, nil); p.code != 409 || !strings.Contains(p.message, "ended") {
		t.Fatalf("the other link after the end = %+v", p)
	}
	if r2, _ := n.Gate.Get(ctx, id); r2.Status != "approved" {
		t.Fatalf("after the misuses: %s", r2.Status)
	}

	// A link lives 24 hours at most, whatever the wait's deadline.
	id2 := n.submit(t, "Second plan")
	late := n.links(t, "plan-"+id2)["approve"]
	n.add(25 * time.Hour)
	if p := do(t, "GET", late, nil, nil); p.code != 409 || !strings.Contains(p.message, "expired") {
		t.Fatalf("GET after 25 h = %+v", p)
	}
	if p := do(t, "POST", late, url.Values{"action": {"approve"}}, nil); p.code != 409 || !strings.Contains(p.message, "expired") || !pendingID(ctx, n, id2) {
		t.Fatalf("POST after 25 h = %+v", p)
	}
}

func pendingID(ctx context.Context, n *notifyApp, id string) bool {
	r, err := n.Gate.Get(ctx, id)
	return err == nil && !r.Decided()
}

func approvalAuditFilter(string) approval.AuditFilter { return approval.AuditFilter{Limit: 50} }

func auditHas(evs []approval.AuditEvent, by string) bool {
	for _, e := range evs {
		if e.By == by && e.Event == "approved" && strings.Contains(e.Comment, "with one tap") {
			return true
		}
	}
	return false
}

// TestHandedOverWaitEnds: a plan handed over to the agent's own dialog ends its wait, and the
// notification that clears it says so (the request has no decision to describe).
func TestHandedOverWaitEnds(t *testing.T) {
	n := serveNotify(t)
	id := n.submit(t, "Refactor the parser")
	for b := range n.hooks { // announced first: only an announced wait has an end to send
		if b.Event == "wait.began" {
			break
		}
	}
	if _, err := n.Gate.HandOver(context.Background(), id, "terminal", "answered in the terminal — outcome not known yet"); err != nil {
		t.Fatal(err)
	}
	src := &waitsSource{w: n.Waits, gate: n.Gate}
	if got := src.Outcome(context.Background(), "plan-"+id); got != "answered in the terminal — outcome not known yet" {
		t.Fatalf("outcome = %q", got)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case b := <-n.hooks:
			if b.Event == "wait.ended" {
				return
			}
		case <-deadline:
			t.Fatal("no wait.ended for a plan handed over to the terminal")
		}
	}
}

// TestNotifyReadsEveryWaitPastTheListsBound: the list shows the oldest waits.MaxList, but the
// notifications read every open wait, so a wait past the bound, announced when read alone, is
// not taken for ended by a read of the whole list.
func TestNotifyReadsEveryWaitPastTheListsBound(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand plans at the gate")
	}
	n := serveNotify(t)
	n.hooks = make(chan notify.WebhookBody, 2*(waits.MaxList+1)) // room for every announcement, unread
	ctx := context.Background()
	for i := range waits.MaxList + 1 {
		if _, _, err := n.Gate.Submit(ctx, approval.Submission{Title: fmt.Sprint("plan ", i), Agent: "claude",
			Plan: approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "1. read"}}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := n.Waits.List(ctx)
	if err != nil || len(l.Waits) != waits.MaxList {
		t.Fatalf("the list has %d waits (%v); want its bound, %d", len(l.Waits), err, waits.MaxList)
	}
	u, err := (&waitsSource{w: n.Waits}).whole(ctx)
	if err != nil || len(u.Open) != waits.MaxList+1 {
		t.Fatalf("the notifications read %d open waits (%v); want all %d", len(u.Open), err, waits.MaxList+1)
	}
}
