package plans_test

import (
	"context"
	"slices"
	"testing"

	"github.com/plandash/plandash/internal/plans"
)

// TestUsageUpdate: ACP's usage_update sets the session's usage (replaced by each report, no
// activity line); the totals and model adapters add in _meta.plandash come along; a report
// without integer counts changes nothing.
func TestUsageUpdate(t *testing.T) {
	e := newEnv(t)
	upd := func(u string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"usage_update",` + u + `}}}`
	}
	e.apply(upd(`"used":1000,"size":200000,"cost":{"amount":0.5,"currency":"USD"}`))
	e.apply(upd(`"used":45000,"size":0,"_meta":{"plandash":{"model":"claude-sonnet-4-5","inputTokens":90000,"outputTokens":1200}}`))
	e.apply(upd(`"used":-1,"size":"big"`))
	sess, err := e.svc.SessionOnly(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	u := sess.Usage
	if u == nil || u.Used != 45000 || u.Size != 0 || u.Model != "claude-sonnet-4-5" || u.InputTokens != 90000 || u.OutputTokens != 1200 || u.Cost != nil {
		t.Fatalf("usage = %+v", u)
	}
	if _, ok := u.Fill(); ok {
		t.Error("Fill is known without a window size")
	}
	if f, ok := (plans.Usage{Used: 50, Size: 200}).Fill(); !ok || f != 0.25 {
		t.Errorf("Fill = %v %v, want 0.25", f, ok)
	}
}

// TestSessionVia: each adapter that announces a session adds how it heard of it, once.
func TestSessionVia(t *testing.T) {
	e := newEnv(t)
	announce := func(via string) {
		e.apply(
			`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/src","mcpServers":[],"_meta":{"plandash":{"via":"`+via+`"}}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
		)
	}
	announce(plans.ViaTranscript)
	announce(plans.ViaHooks)
	announce(plans.ViaTranscript)
	sess, err := e.svc.SessionOnly(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{plans.ViaTranscript, plans.ViaHooks}; !slices.Equal(sess.Via, want) {
		t.Errorf("via = %q, want %q", sess.Via, want)
	}
}
