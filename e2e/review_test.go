package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/approval"
)

// The gate as a code review: a comment on an entry, drafted in the page (kept across a reload)
// and sent with "request changes", reaches an agent waiting over MCP and one waiting on the
// HTTP long poll as structured feedback; the next revision shows which comments it addressed.

// bearerRT adds the token to every request of the MCP client.
type bearerRT struct{}

func (bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpResult is what the MCP agent ends with; the goroutine never fails the test itself.
type mcpResult struct {
	out struct {
		RequestID string `json:"request_id"`
		Decision  string `json:"decision"`
		Feedback  []struct {
			Target  string `json:"target"`
			Entry   int    `json:"entry"`
			Quote   string `json:"quote"`
			Comment string `json:"comment"`
		} `json:"feedback"`
	}
	text string
	err  error
}

// askOverMCP calls request_plan_approval as an agent does and waits for the decision.
func askOverMCP(ctx context.Context, a *app, args map[string]any) <-chan mcpResult {
	out := make(chan mcpResult, 1)
	go func() {
		var res mcpResult
		defer func() { out <- res }()
		client := mcp.NewClient(&mcp.Implementation{Name: "review-agent", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.url("/mcp"), HTTPClient: &http.Client{Transport: bearerRT{}}}, nil)
		if err != nil {
			res.err = err
			return
		}
		defer cs.Close()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request_plan_approval", Arguments: args})
		if err != nil {
			res.err = err
			return
		}
		b, _ := json.Marshal(r.StructuredContent)
		res.err = json.Unmarshal(b, &res.out)
		if len(r.Content) > 0 {
			if tc, ok := r.Content[0].(*mcp.TextContent); ok {
				res.text = tc.Text
			}
		}
	}()
	return out
}

// pendingID waits until one request is pending and returns its id.
func (a *app) pendingID() string {
	a.t.Helper()
	deadline := time.Now().Add(waitFor)
	for time.Now().Before(deadline) {
		var list struct{ Requests []approval.Request }
		a.getJSON("/api/v1/approvals?status=pending", &list)
		if len(list.Requests) == 1 {
			return list.Requests[0].ID
		}
		time.Sleep(50 * time.Millisecond)
	}
	a.t.Fatal("no pending request appeared")
	return ""
}

func TestReviewCommentReachesWaitingAgents(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitFor)
	defer cancel()
	viaMCP := askOverMCP(ctx, a, map[string]any{
		"title": "Refactor the parser", "agent": "review-agent", "session_id": "rev-s",
		"plan": map[string]any{"type": "items", "entries": []map[string]any{
			{"content": "Read the code", "priority": "high"}, {"content": "Change it"}, {"content": "Run the tests"}}},
	})
	id := a.pendingID()
	viaHTTP := a.await(id)

	p := openPage(t, a, "/approvals/"+id)
	entry2 := `[data-testid="plan-shown"] [data-testid="plan-entry"]:nth-child(2) [data-testid="comment-on"]`
	p.wait("a comment button on each entry", exists(entry2))
	p.do(click(entry2))
	p.wait("the composer pointed at entry 2", `document.querySelector('[data-testid="review-target"]').value === "entry:2" && document.activeElement === document.querySelector('[data-testid="review-text"]')`)
	p.do(typeInto(`[data-testid="review-text"]`, "Say which functions change"),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	p.wait("the draft", `document.querySelectorAll('[data-testid="review-drafts"] [data-testid="review-draft"]').length === 1 && document.querySelector('[data-testid="review-text"]').value === ""`)

	// A reload keeps the draft.
	p.do(chromedp.Reload())
	p.waitConn("live")
	p.wait("the draft after a reload", `document.querySelectorAll('[data-testid="review-drafts"] [data-testid="review-draft"]').length === 1 &&
		document.querySelector('[data-testid="review-draft"]').dataset.target === "entry:2"`)
	checkA11y(p, axeSource(t), "a request with a draft review")
	shootGate(t, p, "review-draft")

	// An overall comment, then x (outside any field) sends the review.
	p.do(typeInto(`[data-testid="decide-comment"]`, "Nearly there."))
	p.eval(`document.activeElement.blur(); "ok"`)
	p.do(key("x"))
	p.wait("the confirmation", visible(`[data-testid="key-confirm"]`)+` && document.querySelector('[data-testid="key-confirm"]').textContent.includes("Request changes")`)
	p.do(key("x"))

	got := a.decision(viaHTTP)
	fb := got.Decision.Feedback
	if got.Status != approval.ChangesRequested || len(fb) != 1 || fb[0].Target != "entry" || fb[0].Entry != 2 || fb[0].Quote != "Change it" ||
		fb[0].Comment != "Say which functions change" || got.Decision.Comment != "Nearly there." || !strings.Contains(got.Decision.FeedbackText, "Nearly there.") {
		t.Fatalf("the HTTP agent got %+v", got.Decision)
	}
	var m mcpResult
	select {
	case m = <-viaMCP:
	case <-time.After(2 * waitFor):
		t.Fatal("the MCP agent got no decision")
	}
	if m.err != nil || m.out.Decision != "changes_requested" || len(m.out.Feedback) != 1 || m.out.Feedback[0].Entry != 2 ||
		m.out.Feedback[0].Quote != "Change it" || m.out.Feedback[0].Comment != "Say which functions change" ||
		!strings.Contains(m.text, `On entry 2 ("Change it")`) || !strings.Contains(m.text, "revises") {
		t.Fatalf("MCP agent got %+v %q (%v)", m.out, m.text, m.err)
	}
	p.wait("the decided page lists the comment", attrIs(`[data-testid="approval-panel"]`, "data-status", "changes_requested"))
	p.do(chromedp.Reload())
	p.wait("the review on the decided page", exists(`[data-testid="decision-feedback"] [data-testid="feedback-item"][data-target="entry:2"]`))
	if kept := p.eval(`String(localStorage.getItem("plandash:review:` + id + `"))`); kept != "null" {
		t.Fatalf("the drafts outlived the decision: %s", kept)
	}

	// The revision, from the same session: entry 2 rewritten.
	next := a.submit(`{"title":"Refactor the parser","agent":"review-agent","sessionId":"rev-s","plan":{"type":"items","entries":[
		{"content":"Read the code","priority":"high"},{"content":"Change Parser.advance and Lexer.Next"},{"content":"Run the tests"}]}}`)
	p.do(chromedp.Navigate(a.url("/approvals/" + next)))
	p.waitConn("live")
	p.wait("the previous review, addressed", exists(`[data-testid="prior-review"] [data-testid="prior-item"][data-addressed="true"][data-target="entry:2"]`)+
		` && `+exists(`[data-testid="revision-diff"] [data-testid="diff-change"]:not([data-op="same"]):not([data-op="skipped"])`))
	checkA11y(p, axeSource(t), "a revision with the previous review")
	shootGate(t, p, "review-revision")
}

// A markdown plan's rendered blocks point at their source lines, and a DAG's calls are
// offered by id: both reach the agent with the text they quote.
func TestReviewMarkdownLineAndCall(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	md := a.submit(`{"title":"Release notes","agent":"gemini","plan":{"type":"markdown","markdown":"# Release 2.4\n\nThe parser is **faster**.\n\n- Parser is faster\n- New ` + "`--json`" + ` flag\n  - nested item\n"}}`)
	decided := a.await(md)
	p := openPage(t, a, "/approvals/"+md)
	pin := `[data-testid="plan-markdown"] li:nth-child(2) > [data-testid="comment-on"]`
	p.wait("a pin on the list item with a sub-list", exists(pin)+` && document.querySelector(`+js(pin)+`).dataset.target === "line:6"`)
	p.do(click(`[data-testid="plan-markdown"] li:first-child > [data-testid="comment-on"]`))
	p.wait("the composer on line 5", `document.querySelector('[data-testid="review-target"]').value === "line:5"`)
	p.do(typeInto(`[data-testid="review-text"]`, "Say by how much"))
	// Not added as a draft: the composer's text is sent with the decision all the same.
	p.submit(`[data-testid="request-changes"]`)
	got := a.decision(decided)
	if fb := got.Decision.Feedback; len(fb) != 1 || fb[0].Line != 5 || fb[0].Quote != "- Parser is faster" || fb[0].Comment != "Say by how much" {
		t.Fatalf("markdown review: %+v", got.Decision)
	}

	dag := a.submit(`{"title":"Fetch and write","agent":"codex","plan":{"type":"dag","calls":[{"_id":"read","_tool":"fs.read","path":"a.txt"},{"_id":"write","_tool":"fs.write","path":"b.txt"}]}}`)
	decided = a.await(dag)
	p.do(chromedp.Navigate(a.url("/approvals/" + dag)))
	p.waitConn("live")
	p.wait("the calls offered", exists(`[data-testid="review-target"] option[value="call:write"]`)+` && `+exists(`details[data-node-id="write"] [data-testid="comment-on"]`))
	p.do(chromedp.SetValue(chromedp.CSS(`[data-testid="review-target"]`), "call:write"),
		typeInto(`[data-testid="review-text"]`, "Write to a temp file first"), click(`[data-testid="review-add"]`))
	p.wait("the draft", exists(`[data-testid="review-draft"][data-target="call:write"]`))
	p.do(click(`[data-testid="request-changes"]`))
	got = a.decision(decided)
	if fb := got.Decision.Feedback; len(fb) != 1 || fb[0].CallID != "write" || fb[0].Quote != "fs.write" {
		t.Fatalf("DAG review: %+v", got.Decision)
	}
}
