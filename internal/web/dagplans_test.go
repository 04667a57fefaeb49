package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

const dagCalls = `[{"_id":"fetch","_tool":"fetchUserProfile","userName":"Alice","_outputPath":"†state.user","_toolCallId":"tc-1"},` +
	`{"_id":"sum","_tool":"summarizeProfile","profile":"†state.user","_outputPath":"†state.summary"}]`

func TestDAGPlans(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	ts.ingest(t, update("s", `{"sessionUpdate":"plan_update","plan":{"type":"_dag","planId":"flow","calls":`+dagCalls+`}}`)+"\n"+
		update("s", `{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"meta","entries":[{"content":"fetch","priority":"high","status":"pending"},{"content":"sum","priority":"high","status":"pending"}],"_meta":{"plandash":{"calls":`+dagCalls+`}}}}`)+"\n"+
		update("s", `{"sessionUpdate":"plan_update","plan":{"type":"_dag","planId":"loop","calls":[{"_id":"a","_tool":"x","in":"†state.b","_outputPath":"†state.a"},{"_id":"b","_tool":"y","in":"†state.a","_outputPath":"†state.b"}]}}`)+"\n"+
		update("s", `{"sessionUpdate":"plan_update","plan":{"type":"_dag","planId":"broken","calls":{"not":"a list"}}}`)+"\n"+
		update("s", `{"sessionUpdate":"tool_call","toolCallId":"tc-1","title":"Fetch","status":"completed"}`))
	_, doc := ts.page(t, "/")
	for _, id := range []string{"flow", "meta"} {
		card := `[data-plan-id=` + id + `] `
		if n := len(all(doc, card+`[data-testid=dag-node]`)); n != 2 {
			t.Fatalf("%s: %d nodes drawn", id, n)
		}
		if n := len(all(doc, card+`[data-testid=dag-edge][data-from=fetch][data-to=sum]`)); n != 1 {
			t.Fatalf("%s: edge fetch→sum drawn %d times", id, n)
		}
		// The node with a _toolCallId follows the ACP tool call's status.
		if n := len(all(doc, card+`[data-testid=dag-node][data-node-id=fetch][data-status=completed]`)); n != 1 {
			t.Fatalf("%s: fetch is not completed", id)
		}
		if n := len(all(doc, card+`[data-testid=dag-node][data-node-id=sum][data-status=pending]`)); n != 1 {
			t.Fatalf("%s: sum is not pending", id)
		}
	}
	if probs := all(doc, `[data-plan-id=loop] [data-testid=dag-problem]`); len(probs) == 0 || !strings.Contains(text(probs[0]), "cycle") {
		t.Fatal("the cycle is not reported")
	}
	if errs := all(doc, `[data-plan-id=broken] [data-testid=dag-error]`); len(errs) != 1 {
		t.Fatal("an unreadable dag plan shows no error")
	}
}

func TestDAGHistoryShowsCallChanges(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	v1 := `[{"_id":"a","_tool":"x","_outputPath":"†state.a"},{"_id":"b","_tool":"y","in":"†state.a"}]`
	v2 := `[{"_id":"a","_tool":"x2","_outputPath":"†state.a"},{"_id":"c","_tool":"z","in":"†state.a"}]`
	for _, calls := range []string{v1, v2} {
		ts.ingest(t, update("s", `{"sessionUpdate":"plan_update","plan":{"type":"_dag","planId":"g","calls":`+calls+`}}`))
	}
	_, doc := ts.page(t, "/sessions/s/plans/g/history?from=1&to=2")
	for sel, want := range map[string]string{`[data-testid=dag-added] code`: "c", `[data-testid=dag-removed] code`: "b", `[data-testid=dag-changed] code`: "a"} {
		if n := all(doc, sel); len(n) != 1 || text(n[0]) != want {
			t.Errorf("%s: %d matches", sel, len(n))
		}
	}
}

func TestDAGUnderReviewIsDrawn(t *testing.T) {
	ts := newTestServer(t, testConfig{})
	req, _ := http.NewRequest("POST", ts.URL+"/api/v1/approvals", strings.NewReader(`{"title":"Run the briefing","plan":{"type":"_dag","calls":`+dagCalls+`}}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create answered %s", resp.Status)
	}
	var created struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, doc := ts.page(t, "/approvals/"+created.ID)
	if n := len(all(doc, `[data-testid=dag-node]`)); n != 2 {
		t.Fatalf("the plan under review draws %d nodes", n)
	}
}
