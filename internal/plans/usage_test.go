package plans_test

import (
	"time"

	"context"
	"github.com/plandash/plandash/internal/acp"
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

// TestApplyWithTime: changes read from an agent's record of the past (WithTime) leave the
// session seen when they happened, so a week-old session read at start is not active; a later
// sighting is never moved back, and a time after now counts as now.
func TestApplyWithTime(t *testing.T) {
	e := newEnv(t)
	upd := func(at time.Time) {
		msgs, err := acp.DecodeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Apply(plans.WithTime(context.Background(), at), plans.NewStream(), []plans.Item{{Line: 1, Msg: msgs[0]}}); err != nil {
			t.Fatal(err)
		}
	}
	seen := func() plans.Session {
		s, err := e.svc.SessionOnly(context.Background(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	week := e.now.Add(-7 * 24 * time.Hour)
	upd(week)
	if s := seen(); !s.FirstSeen.Equal(week) || !s.LastSeen.Equal(week) || s.Active(e.now, time.Hour) {
		t.Fatalf("a week-old record: %+v", s)
	}
	upd(week.Add(-time.Hour))
	if s := seen(); !s.LastSeen.Equal(week) {
		t.Errorf("moved back: %v", s.LastSeen)
	}
	upd(e.now.Add(time.Hour))
	if s := seen(); !s.LastSeen.Equal(e.now) {
		t.Errorf("a future time: %v, want now %v", s.LastSeen, e.now)
	}
}
