package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/testkit"
)

// bearer adds the token to every request of the MCP client.
type bearer struct{ next http.RoundTripper }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+testToken)
	return b.next.RoundTrip(r)
}

// TestMCPApprovalReturnsModifiedPlan: an agent calls request_plan_approval over streamable HTTP
// with the official SDK; it is told it is waiting; a person modifies the plan through the HTTP
// API; the tool returns exactly the modified plan.
func TestMCPApprovalReturnsModifiedPlan(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	progress := make(chan *mcp.ProgressNotificationParams, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params:
			default:
			}
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{http.DefaultTransport}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tool := range tools.Tools {
		found = found || tool.Name == "request_plan_approval"
	}
	if !found {
		t.Fatal("request_plan_approval is not offered at /mcp")
	}

	type callResult struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan callResult, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "request_plan_approval", Arguments: map[string]any{
			"title": "Migrate the database", "agent": "test-agent", "session_id": "mcp-1",
			"plan": map[string]any{"type": "items", "entries": []map[string]any{
				{"content": "Back up", "priority": "high"}, {"content": "Migrate"}, {"content": "Verify"}}},
		}}
		params.SetProgressToken("wait-1")
		res, err := cs.CallTool(ctx, params)
		done <- callResult{res, err}
	}()

	var p *mcp.ProgressNotificationParams
	select {
	case p = <-progress:
	case r := <-done:
		t.Fatalf("the tool returned before anyone decided: %+v %v", r.res, r.err)
	case <-ctx.Done():
		t.Fatal("no progress notification while waiting")
	}
	pending, _ := ts.srv.gate.Pending(ctx)
	if len(pending) != 1 || !strings.Contains(p.Message, pending[0].ID) || p.ProgressToken != "wait-1" {
		t.Fatalf("progress %+v for pending %v", p, ids(pending))
	}
	id := pending[0].ID
	if pending[0].Agent != "test-agent" || pending[0].SessionID != "mcp-1" || pending[0].Plan.Entries[1].Priority != "medium" {
		t.Fatalf("request as stored: %+v", pending[0])
	}

	waitForWaiter(t, ts, id)
	code, raw := ts.api(t, "POST", "/api/v1/approvals/"+id+"/decision", `{"action":"modify","comment":"verify first",
		"plan":{"entries":[{"content":"Back up","priority":"high"},{"content":"Verify the backup","priority":"high"},{"content":"Migrate","status":"pending"}]}}`)
	if code != 200 {
		t.Fatalf("decide: %d %s", code, raw)
	}
	r := testkit.Recv(t, done, 30*time.Second, "tool result")
	if r.err != nil || r.res.IsError {
		t.Fatalf("tool call: %v %+v", r.err, r.res)
	}
	b, _ := json.Marshal(r.res.StructuredContent)
	var out struct {
		RequestID string `json:"request_id"`
		Decision  string `json:"decision"`
		Comment   string `json:"comment"`
		DecidedBy string `json:"decided_by"`
		DecidedAt time.Time
		Plan      struct {
			Type    string `json:"type"`
			Entries []struct{ Content, Priority, Status string }
		} `json:"plan"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out.Plan.Entries {
		got = append(got, e.Content+"/"+e.Priority+"/"+e.Status)
	}
	want := "Back up/high/pending,Verify the backup/high/pending,Migrate/medium/pending"
	if out.RequestID != id || out.Decision != "modified" || out.DecidedBy != "ann" || out.Comment != "verify first" || strings.Join(got, ",") != want {
		t.Fatalf("tool result %s\nentries %v, want %s", b, got, want)
	}
	text := r.res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "Run the changed plan") || !strings.Contains(text, "Verify the backup") {
		t.Fatalf("text for the model: %s", text)
	}

	// Invalid plans are refused with what is wrong, as a tool error the model can read.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request_plan_approval", Arguments: map[string]any{
		"title": "x", "plan": map[string]any{"type": "items", "entries": []map[string]any{{"content": " "}}}}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "entry 1 has no text") {
		t.Fatalf("invalid plan: %v %+v", err, res)
	}
}

func ids(rs []approval.Request) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}
