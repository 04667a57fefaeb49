package acpproxy

import (
	"encoding/json"
	"testing"
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
