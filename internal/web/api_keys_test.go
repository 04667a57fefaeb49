package web

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// camelKey is a key of plandash's JSON: camelCase, or ACP's underscore-prefixed extension keys
// (_meta, _state, a dag call's _id and _outputPath).
var camelKey = regexp.MustCompile(`^_?[a-z][a-zA-Z0-9]*$`)

// snakeKeys are the only snake_case keys an answer may have: a shared-plan version conflict names
// the revisions the way docker-agent's last_known_revision guard does, and `plandash plans` reads
// them to exit with 3.
var snakeKeys = map[string]bool{"expected_revision": true, "current_revision": true}

// opaqueKeys hold what an agent sent, echoed as sent: their keys are the agent's, not ours.
var opaqueKeys = map[string]bool{"raw": true, "rawInput": true, "rawOutput": true, "content": true, "locations": true,
	"_meta": true, "params": true, "_state": true}

// apiRoute matches an API route of the table in routes.go.
var apiRoute = regexp.MustCompile(`r\.(Get|Post|Put|Delete|Patch)\("(/api/[^"]+)"`)

// TestAPIKeysAreCamelCase calls every JSON route of the API, as listed in routes.go, with
// realistic data, and checks every key of every answer: one casing, and real activity ids.
func TestAPIKeysAreCamelCase(t *testing.T) {
	ts := newTestServer(t, testConfig{User: "ann"})
	offer := `{"stream":"st","id":7,"sessionId":"s1","inIde":true,"params":{"sessionId":"s1",` +
		`"toolCall":{"toolCallId":"c9","title":"Edit main.go","kind":"edit","rawInput":{"path":"main.go"}},` +
		`"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}`
	ingest := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"claude","title":"Claude Code"}}}`,
		update("s1", planA),
		update("s1", `{"sessionUpdate":"plan","entries":[{"content":"Write tests","priority":"high","status":"completed"},{"content":"Ship","priority":"low","status":"in_progress"}]}`),
		update("s1", `{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"design","content":"## Steps\n- [ ] one"}}`),
		update("s1", `{"sessionUpdate":"plan_update","plan":{"type":"_vendor/board","planId":"board","columns":[{"name":"todo"}]}}`),
		update("s1", `{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Read main.go","kind":"read","status":"in_progress","rawInput":{"path":"main.go"}}`),
		update("s1", `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","rawOutput":{"bytes":120},"content":[{"type":"content","content":{"type":"text","text":"package main"}}]}`),
		update("s1", `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Reading the code"}}`),
		update("s1", `{"sessionUpdate":"current_mode_update","currentModeId":"plan"}`),
		update("s1", `{"sessionUpdate":"_vendor_progress","percent":40}`),
		"not json",
	}, "\n")
	var approvalID, ruleID string
	steps := []struct {
		method, route string
		path          func() string // the route filled in; the route itself when nil
		body          string
		status        int
	}{
		{"POST", "/api/v1/embed/login", nil, "", 204},
		{"POST", "/api/v1/ingest", nil, ingest, 200},
		{"POST", "/api/v1/hooks/{agent}", func() string { return "/api/v1/hooks/claude" }, fixture(t, "post_todowrite.json"), 200},
		{"GET", "/api/v1/plans", nil, "", 200},
		{"GET", "/api/v1/sessions", nil, "", 200},
		{"GET", "/api/v1/sessions/{id}", func() string { return "/api/v1/sessions/s1" }, "", 200},
		{"GET", "/api/v1/sessions/{id}/tool-calls", func() string { return "/api/v1/sessions/s1/tool-calls?limit=1" }, "", 200},
		{"GET", "/api/v1/sessions/{id}", func() string { return "/api/v1/sessions/nope" }, "", 404},
		{"GET", "/api/v1/sessions/{id}/plans/{plan}/history", func() string { return "/api/v1/sessions/s1/plans/main/history?from=1&to=2" }, "", 200},

		{"POST", "/api/v1/approvals", nil, checklist, 201},
		{"POST", "/api/v1/approvals", nil, `{"title":"Brief","sessionId":"s1","plan":{"type":"_dag","calls":` + dagCalls + `}}`, 201},
		{"GET", "/api/v1/approvals", nil, "", 200},
		{"GET", "/api/v1/approvals/{id}", func() string { return "/api/v1/approvals/" + approvalID }, "", 200},
		{"POST", "/api/v1/approvals/validate", nil, `{"type":"_dag","calls":` + dagCalls + `}`, 200},
		{"GET", "/api/v1/approvals/count", nil, "", 200},
		{"POST", "/api/v1/approvals/rules", nil, `{"agent":"linter","note":"formatting only"}`, 201},
		{"GET", "/api/v1/approvals/rules", nil, "", 200},
		{"POST", "/api/v1/approvals/{id}/decision", func() string { return "/api/v1/approvals/" + approvalID + "/decision" }, `{"action":"modify","comment":"smaller","plan":{"type":"items","entries":[{"content":"Read the code","priority":"high","status":"pending"}]}}`, 200},
		{"GET", "/api/v1/approvals/audit", nil, "", 200},
		{"GET", "/api/v1/waits", nil, "", 200},
		{"POST", "/api/v1/waits/{id}/answer", func() string { return "/api/v1/waits/plan-" + approvalID + "/answer" }, `{"action":"approve"}`, 409},
		{"DELETE", "/api/v1/approvals/rules/{rule}", func() string { return "/api/v1/approvals/rules/" + ruleID }, "", 200},

		{"POST", "/api/v1/shared-plans", nil, `{"name":"release","title":"Release","author":"ann","status":"draft","content":"# Release\n- [ ] tag"}`, 201},
		{"GET", "/api/v1/shared-plans", nil, "", 200},
		{"GET", "/api/v1/shared-plans/{name}", func() string { return "/api/v1/shared-plans/release" }, "", 200},
		{"PUT", "/api/v1/shared-plans/{name}", func() string { return "/api/v1/shared-plans/release" }, `{"content":"# Release\n- [x] tag"}`, 200},
		{"POST", "/api/v1/shared-plans/{name}", func() string { return "/api/v1/shared-plans/release" }, `{"content":"v3","last_known_revision":2}`, 200},
		{"PUT", "/api/v1/shared-plans/{name}", func() string { return "/api/v1/shared-plans/release" }, `{"content":"stale","last_known_revision":1}`, 409},
		{"GET", "/api/v1/shared-plans/{name}/status", func() string { return "/api/v1/shared-plans/release/status" }, "", 200},
		{"PUT", "/api/v1/shared-plans/{name}/status", func() string { return "/api/v1/shared-plans/release/status" }, `{"status":"ready"}`, 200},
		{"POST", "/api/v1/shared-plans/{name}/status", func() string { return "/api/v1/shared-plans/release/status" }, `{"status":"done"}`, 200},
		{"GET", "/api/v1/shared-plans/{name}/history", func() string { return "/api/v1/shared-plans/release/history" }, "", 200},
		{"POST", "/api/v1/shared-plans/-/tools/{tool}", func() string { return "/api/v1/shared-plans/-/tools/read_plan" }, `{"name":"release"}`, 200},
		{"POST", "/api/v1/shared-plans/-/tools/{tool}", func() string { return "/api/v1/shared-plans/-/tools/list_plans" }, `{}`, 200},
		{"POST", "/api/v1/shared-plans/-/tools/{tool}", func() string { return "/api/v1/shared-plans/-/tools/get_plan_status" }, `{"name":"release"}`, 200},
		{"DELETE", "/api/v1/shared-plans/{name}", func() string { return "/api/v1/shared-plans/release" }, "", 200},

		{"POST", "/api/v1/proxy/permissions", nil, offer, 204},
		{"GET", "/api/v1/proxy/permissions", nil, "", 200},
		{"POST", "/api/v1/proxy/permissions/answer", nil, `{"stream":"st","id":7,"outcome":{"outcome":"selected","optionId":"allow"}}`, 202},
		{"GET", "/api/v1/proxy/answers", func() string { return "/api/v1/proxy/answers?stream=st&wait=10ms" }, "", 200},
		{"POST", "/api/v1/proxy/permissions/resolved", nil, `{"stream":"st","id":7,"by":"dashboard","outcome":{"outcome":"selected","optionId":"allow"}}`, 204},
		{"GET", "/api/v1/proxy/permissions", nil, "", 200},

		{"POST", "/api/v1/sessions/{id}/end", func() string { return "/api/v1/sessions/s1/end" }, "", 200},

		{"POST", "/api/v1/tokens", nil, `{"name":"ci","scope":"decide","expires":"24h"}`, 201},
		{"GET", "/api/v1/tokens", nil, "", 200},
		{"DELETE", "/api/v1/tokens/{name}", func() string { return "/api/v1/tokens/ci" }, "", 204},
	}
	called := map[string]bool{}
	answers := map[string][]byte{}
	for _, st := range steps {
		path := st.route
		if st.path != nil {
			path = st.path()
		}
		code, raw := ts.api(t, st.method, path, st.body)
		if code != st.status {
			t.Fatalf("%s %s: %d, want %d: %s", st.method, path, code, st.status, raw)
		}
		called[st.method+" "+st.route] = true
		answers[st.method+" "+path] = raw
		if len(raw) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s %s: not JSON: %v", st.method, path, err)
		}
		for _, k := range badKeys(v, "") {
			t.Errorf("%s %s: key %s is not camelCase", st.method, path, k)
		}
		// Ids the next steps need.
		var id struct {
			ID string `json:"id"`
		}
		switch {
		case st.method == "POST" && st.route == "/api/v1/approvals" && approvalID == "":
			_ = json.Unmarshal(raw, &id)
			approvalID = id.ID
		case st.method == "POST" && st.route == "/api/v1/approvals/rules":
			_ = json.Unmarshal(raw, &id)
			ruleID = id.ID
		}
	}

	// Every API route of the table was called.
	table, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range apiRoute.FindAllStringSubmatch(string(table), -1) {
		if key := strings.ToUpper(m[1]) + " " + m[2]; !called[key] {
			t.Errorf("route %s is not called by this test: add it", key)
		}
	}

	// Every activity item has its own id.
	var sess struct {
		Activity []struct {
			ID int64 `json:"id"`
		} `json:"activity"`
	}
	if err := json.Unmarshal(answers["GET /api/v1/sessions/s1"], &sess); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, a := range sess.Activity {
		if a.ID == 0 || seen[a.ID] {
			t.Errorf("activity ids %+v: each must be its own, not 0", sess.Activity)
			break
		}
		seen[a.ID] = true
	}
	if len(sess.Activity) < 2 {
		t.Errorf("%d activity items, want the message, the mode and the unknown update", len(sess.Activity))
	}
	// A resolved permission's outcome reads as ACP's, the shape the answer endpoint takes.
	if s := string(answers["GET /api/v1/proxy/permissions"]); !strings.Contains(s, `"outcome": {`) || !strings.Contains(s, `"optionId": "allow"`) {
		t.Errorf("resolved permission: %s", s)
	}
}

// badKeys lists the keys of v, at any depth, that are neither camelCase nor an allowed
// snake_case key, skipping values an agent sent.
func badKeys(v any, at string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if !camelKey.MatchString(k) && !snakeKeys[k] {
				out = append(out, at+"."+k)
			}
			if !opaqueKeys[k] {
				out = append(out, badKeys(val, at+"."+k)...)
			}
		}
	case []any:
		for _, val := range x {
			out = append(out, badKeys(val, at+"[]")...)
		}
	}
	return out
}
