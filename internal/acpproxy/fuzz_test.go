package acpproxy

import (
	"encoding/json"
	"testing"

	"github.com/plandash/plandash/internal/acp"
)

// FuzzProxyFilters feeds arbitrary lines to everything the proxy reads on its forwarding path.
// Nothing may panic, and every frame the bridge writes in place of a valid one must be valid
// JSON again: an IDE must never get a broken frame from the proxy.
func FuzzProxyFilters(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{}}}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"plan":null}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"a","entries":[{"content":"x","priority":"high","status":"pending"}]}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan_removed","id":"a"}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"plan","entries":[]},"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[]}}`,
		`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		planKey(line)
		var sp splitter
		sp.max = 64
		sp.feed(line, func([]byte, bool, int) {})

		b := newBridge()
		if v, out := b.fromClient(line); v == replace && !json.Valid(out) {
			t.Fatalf("initialize rewritten into invalid JSON: %s", out)
		}
		b.active.Store(true)
		for range 2 { // twice: the second time the bridge has state for the session
			if v, out := b.fromAgent(line); v == replace && !json.Valid(out) {
				t.Fatalf("plan frame rewritten into invalid JSON: %s", out)
			}
		}
		ps := newPermissions(ApprovalsBoth, newFakeBroker(), &peerWriter{w: discard{}}, &peerWriter{w: discard{}}, nil)
		ps.fromAgent(line)
		ps.fromClient(line)
		ps.agentGone()
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// FuzzCursorFrames feeds arbitrary agent lines to the Cursor translations: a checklist made of
// cursor/update_todos is always a session/update plan the server accepts whole (no entry
// dropped), keyed as a plan; a cursor/create_plan is always offered as a permission request the
// inbox can read, whose answers go back nested.
func FuzzCursorFrames(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"cursor/update_todos","params":{"sessionId":"s","todos":[{"id":"1","content":"a","status":"TODO_STATUS_PENDING"}]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"cursor/update_todos","params":{"merge":true,"todos":[{"id":"1","content":"a","status":"odd"}]}}`,
		`{"jsonrpc":"2.0","id":"x","method":"cursor/create_plan","params":{"name":"n","plan":"# p","todos":[{"content":"t"}]}}`,
		`{"jsonrpc":"2.0","id":"x","method":"cursor/create_plan","params":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		sessions := &sessionTracker{last: "fallback"}
		c := cursorTodos{sessions: sessions}
		for range 2 { // twice: the second time a merge has a list to merge into
			pf := c.planFrame(line)
			if pf == nil {
				continue
			}
			if planKey(pf) == "" {
				t.Fatalf("the checklist is not keyed as a plan: %s", pf)
			}
			msgs, err := acp.DecodeLine(pf)
			if err != nil || len(msgs) != 1 {
				t.Fatalf("the checklist is not a message: %v: %s", err, pf)
			}
			n, warns, err := acp.DecodeSessionNotification(msgs[0].Params)
			if err != nil || n.Update.Plan == nil || len(warns) > 0 {
				t.Fatalf("the checklist is not a clean plan: %v %v: %s", err, warns, pf)
			}
		}
		msgs, err := acp.DecodeLine(line)
		if err != nil || len(msgs) != 1 || msgs[0].ID == nil {
			return
		}
		req, ok := cursorPlanRequest(msgs[0].ID, msgs[0].Params, sessions)
		if !ok {
			return
		}
		if _, err := acp.DecodeRequestPermissionParams(req.Params); err != nil {
			t.Fatalf("the offer cannot be read: %v: %s", err, req.Params)
		}
		for _, o := range []acp.PermissionOutcome{{Outcome: "selected", OptionID: cursorAcceptOption}, {Outcome: "cancelled"}} {
			var resp struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(cursorResultFrame(req.ID, o), &resp); err != nil {
				t.Fatal(err)
			}
			if back, err := acp.DecodeCursorPlanOutcome(resp.Result); err != nil || back != cursorOutcome(o) {
				t.Fatalf("answer %+v went out as %s", o, resp.Result)
			}
		}
	})
}
