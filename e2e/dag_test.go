package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

const dagPlan = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-dag","update":{"sessionUpdate":"plan_update","plan":{"type":"_dag","planId":"profile","calls":[` +
	`{"_id":"fetch","_title":"Fetch the profile","_tool":"fetchUserProfile","userName":"Alice","_outputPath":"†state.user","_toolCallId":"tc-fetch"},` +
	`{"_id":"sum","_tool":"summarizeProfile","profile":"†state.user","_outputPath":"†state.summary"}]}}}}`

func toolCall(status string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-dag","update":{"sessionUpdate":"tool_call_update","toolCallId":"tc-fetch","status":"` + status + `"}}}`
}

func TestDAGPlanDrawnAndLive(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	p := openPage(t, a, "/")
	p.markNoReload()
	a.ingest(dagPlan, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-dag","update":{"sessionUpdate":"tool_call","toolCallId":"tc-fetch","title":"fetch","status":"in_progress"}}}`)

	node := func(id, status string) string {
		return `document.querySelector('` + card("sess-dag", "profile") + ` [data-testid="dag-node"][data-node-id="` + id + `"][data-status="` + status + `"]')`
	}
	p.wait("the diagram with the running fetch node", node("fetch", "in_progress")+` && `+node("sum", "pending"))
	p.wait("the data-flow edge", `document.querySelector('[data-testid="dag-edge"][data-from="fetch"][data-to="sum"]')`)

	// The node follows its ACP tool call live.
	a.ingest(toolCall("completed"))
	p.wait("the fetch node to complete", node("fetch", "completed"))
	p.requireNoReload()
	// Only what changed is animated: the completed node, not its neighbour.
	if got := p.eval(`[...document.querySelectorAll('[data-testid="dag-node"].dag-changed')].map(n => n.dataset.nodeId).join(",")`); got != "fetch" {
		t.Fatalf("nodes marked as changed: %q, want just fetch", got)
	}

	// A click on a node shows its arguments.
	p.eval(`document.querySelector('[data-testid="dag-node"][data-node-id="fetch"]').dispatchEvent(new MouseEvent("click", {bubbles: true})); "ok"`)
	p.wait("the node's details to open", `document.querySelector('[data-testid="dag-node-details"][data-node-id="fetch"]').open`)
	if args := p.eval(`document.querySelector('[data-testid="dag-node-details"][data-node-id="fetch"] [data-testid="dag-node-args"]').textContent`); !strings.Contains(args, "Alice") {
		t.Fatalf("the fetch node's arguments do not show: %q", args)
	}
}

func TestDAGCycleShownAsError(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	p := openPage(t, a, "/")
	a.ingest(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-dag","update":{"sessionUpdate":"plan_update","plan":{"type":"_dag","planId":"loop","calls":[` +
		`{"_id":"a","_tool":"x","in":"†state.b","_outputPath":"†state.a"},{"_id":"b","_tool":"y","in":"†state.a","_outputPath":"†state.b"}]}}}}`)
	p.wait("the cycle problem", `[...document.querySelectorAll('`+card("sess-dag", "loop")+` [data-testid="dag-problem"]')].some(e => /cycle/i.test(e.textContent))`)
	p.wait("the diagram despite the problem", `document.querySelectorAll('`+card("sess-dag", "loop")+` [data-testid="dag-node"]').length === 2`)
}

// A session page with a diagram fits a 320 px panel: the diagram scales, nothing scrolls sideways.
func TestDAGSessionPageNarrow(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	// Six calls side by side feeding a seventh: a graph far wider than the panel.
	var calls, reads []string
	for i := range 6 {
		calls = append(calls, fmt.Sprintf(`{"_id":"fetch%d","_title":"Fetch source number %d","_tool":"fetch","_outputPath":"†state.s%d"}`, i, i, i))
		reads = append(reads, fmt.Sprintf(`"in%d":"†state.s%d"`, i, i))
	}
	calls = append(calls, `{"_id":"merge","_tool":"merge",`+strings.Join(reads, ",")+`}`)
	a.ingest(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-wide","update":{"sessionUpdate":"plan_update","plan":{"type":"_dag","planId":"wide","calls":[` + strings.Join(calls, ",") + `]}}}}`)
	p := openPage(t, a, "/sessions/sess-wide")
	p.do(chromedp.EmulateViewport(320, 800))
	p.wait("the diagram", `document.querySelectorAll('[data-testid="dag-node"]').length === 7`)
	if sw, cw := evalAs[int](p, `document.documentElement.scrollWidth`), evalAs[int](p, `document.documentElement.clientWidth`); sw > cw {
		p.fail("at 320 px the session page is %d px wide (clientWidth %d)", sw, cw)
	}
}

// TestDAGInboxRowDrawn: a tool-call plan the inbox fetches to show in its row (HTML no socket
// fragment brought) is bound by dag.js like any other diagram: zoomed to fit, nodes clickable.
func TestDAGInboxRowDrawn(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	calls := `[{"_tool":"read_file","_id":"read","path":"go.mod","_outputPath":"†state.mod"},{"_tool":"summarize","_id":"sum","text":"†state.mod"}]`
	id := a.submit(`{"title":"Summarise go.mod","agent":"cagent","plan":{"type":"dag","calls":` + calls + `}}`)
	p := openPage(t, a, "/approvals")
	p.wait("the row", exists(row(id)))
	p.do(click(row(id) + ` [data-testid="show-plan"]`))
	fig := row(id) + ` [data-testid="row-plan"] [data-testid="dag-diagram"]`
	p.wait("the diagram bound in the row", `(function(){ var f = document.querySelector(`+js(fig)+`); return !!f && !!f.dataset.zoom; })()`)
	p.do(click(fig + ` [data-testid="dag-node"][data-node-id="sum"]`))
	p.wait("the node's details", exists(fig+` [data-testid="dag-node"][data-node-id="sum"].dag-selected`))
}
