package plans_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/sqlite"
)

// env is a Service on a real SQLite file with a clock the test moves.
type env struct {
	t     *testing.T
	dir   string
	db    *sqlite.DB
	store plans.Store
	svc   *plans.Service
	now   time.Time
	st    *plans.Stream
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir(), now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC), st: plans.NewStream()}
	e.open()
	return e
}

func (e *env) open() {
	e.t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(e.dir, "plandash.db"))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { db.Close() })
	e.db, e.store = db, db.Plans()
	e.svc = plans.NewService(e.store, plans.Config{Idle: time.Hour, Now: func() time.Time { return e.now }})
}

// apply posts NDJSON lines and fails on errors unless the test expects them.
func (e *env) apply(lines ...string) plans.Result {
	e.t.Helper()
	var items []plans.Item
	for i, l := range lines {
		msgs, err := acp.DecodeLine([]byte(l))
		if err != nil {
			e.t.Fatalf("line %d: %v", i+1, err)
		}
		for _, m := range msgs {
			items = append(items, plans.Item{Line: i + 1, Msg: m})
		}
	}
	res, err := e.svc.Apply(context.Background(), e.st, items)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func (e *env) plan(sid, pid string) plans.Plan {
	e.t.Helper()
	p, err := e.store.Plan(context.Background(), sid, pid)
	if err != nil {
		e.t.Fatalf("plan %s/%s: %v", sid, pid, err)
	}
	return p
}

func upd(sid, update string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sid + `","update":` + update + `}}`
}

func v1(entries ...string) string {
	var parts []string
	for _, e := range entries {
		st, content, _ := strings.Cut(e, ":")
		parts = append(parts, fmt.Sprintf(`{"content":%q,"priority":"medium","status":%q}`, content, st))
	}
	return `{"sessionUpdate":"plan","entries":[` + strings.Join(parts, ",") + `]}`
}

func TestV1PlanRevisions(t *testing.T) {
	e := newEnv(t)
	e.apply(upd("s1", v1("pending:a", "pending:b")))
	e.now = e.now.Add(time.Second)
	e.apply(upd("s1", v1("completed:a", "in_progress:b")))
	p := e.plan("s1", "main")
	if p.Revision != 2 || p.Kind != plans.KindItems || len(p.Entries) != 2 {
		t.Fatalf("plan = rev %d kind %s entries %d", p.Revision, p.Kind, len(p.Entries))
	}
	if pr := p.Progress(); pr.Completed != 1 || pr.InProgress != 1 || pr.Percent() != 50 {
		t.Errorf("progress = %+v", pr)
	}
	if !p.Created.Before(p.Updated) {
		t.Errorf("created %v should precede updated %v", p.Created, p.Updated)
	}
	h, err := e.svc.History(context.Background(), "s1", "main")
	if err != nil || len(h) != 2 || h[0].Plan.Entries[0].Status != "pending" || h[1].Plan.Entries[0].Status != "completed" {
		t.Fatalf("history = %+v, %v", h, err)
	}
}

func TestPlanKinds(t *testing.T) {
	tests := []struct {
		name, update, planID string
		kind                 plans.Kind
		check                func(t *testing.T, p plans.Plan)
	}{
		{"items with planId", `{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p1","entries":[{"content":"x","priority":"high","status":"pending"}]}}`, "p1", plans.KindItems,
			func(t *testing.T, p plans.Plan) {
				if len(p.Entries) != 1 {
					t.Errorf("entries = %d", len(p.Entries))
				}
			}},
		{"items with older id", `{"sessionUpdate":"plan_update","plan":{"type":"items","id":"old","entries":[]}}`, "old", plans.KindItems, nil},
		{"markdown", `{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"md","content":"# Title\n- [ ] a"}}`, "md", plans.KindMarkdown,
			func(t *testing.T, p plans.Plan) {
				if p.Title() != "Md" {
					t.Errorf("title = %q", p.Title())
				}
			}},
		{"file", `{"sessionUpdate":"plan_update","plan":{"type":"file","planId":"f","uri":"file:///tmp/plan.md"}}`, "f", plans.KindFile,
			func(t *testing.T, p plans.Plan) {
				if p.URI != "file:///tmp/plan.md" {
					t.Errorf("uri = %q", p.URI)
				}
			}},
		{"custom kept whole", `{"sessionUpdate":"plan_update","plan":{"type":"_x.dev/budget","planId":"b","tokens":{"used":5}}}`, "b", plans.KindCustom,
			func(t *testing.T, p plans.Plan) {
				if !strings.Contains(string(p.Raw), `"tokens":{"used":5}`) || p.Type != "_x.dev/budget" {
					t.Errorf("raw = %s type = %s", p.Raw, p.Type)
				}
			}},
		{"dag in _meta", `{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"d","entries":[],"_meta":{"plandash":{"calls":[{"_tool":"x"}]}}}}`, "d", plans.KindDAG, nil},
		{"meta preserved", `{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"m","content":"x","_meta":{"trace":{"deep":[1,2]}}}}`, "m", plans.KindMarkdown,
			func(t *testing.T, p plans.Plan) {
				if string(p.Meta) != `{"trace":{"deep":[1,2]}}` {
					t.Errorf("meta = %s", p.Meta)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if res := e.apply(upd("s", tt.update)); res.Applied != 1 || len(res.Errors) != 0 {
				t.Fatalf("result = %+v", res)
			}
			p := e.plan("s", tt.planID)
			if p.Kind != tt.kind {
				t.Fatalf("kind = %s, want %s", p.Kind, tt.kind)
			}
			if tt.check != nil {
				tt.check(t, p)
			}
		})
	}
}

func TestRemovalRetiresButKeepsHistory(t *testing.T) {
	for _, removal := range []string{
		`{"sessionUpdate":"plan_removed","planId":"main"}`,
		`{"sessionUpdate":"plan_removed","id":"main"}`,
		`{"sessionUpdate":"plan","entries":[]}`,
	} {
		t.Run(removal, func(t *testing.T) {
			e := newEnv(t)
			e.apply(upd("s", v1("pending:a")))
			e.apply(upd("s", removal))
			if p := e.plan("s", "main"); !p.Removed || p.Revision != 2 {
				t.Fatalf("plan = removed %v rev %d", p.Removed, p.Revision)
			}
			groups, _, _ := e.svc.Overview(context.Background())
			if len(groups) != 0 {
				t.Fatalf("overview still shows %d sessions", len(groups))
			}
			if h, _ := e.svc.History(context.Background(), "s", "main"); len(h) != 2 {
				t.Fatalf("history has %d revisions", len(h))
			}
			// Removing again is harmless and adds nothing.
			e.apply(upd("s", removal))
			if p := e.plan("s", "main"); p.Revision != 2 {
				t.Fatalf("second removal bumped revision to %d", p.Revision)
			}
		})
	}
}

func TestInvalidEntrySkippedWithWarning(t *testing.T) {
	e := newEnv(t)
	res := e.apply(upd("s", `{"sessionUpdate":"plan","entries":[{"content":"ok","priority":"high","status":"pending"},{"content":"bad","priority":"urgent","status":"pending"},{"content":"c","priority":"_custom","status":"cancelled"}]}`))
	if res.Applied != 1 || len(res.Warnings) != 1 {
		t.Fatalf("result = %+v", res)
	}
	p := e.plan("s", "main")
	if len(p.Entries) != 2 || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "urgent") {
		t.Fatalf("entries %d warnings %q", len(p.Entries), p.Warnings)
	}
}

// TestKnownMethodsAccepted: ingest takes the ACP methods that acp.KnownMethod knows (the list
// metrics count by), session/set_model among them, which it once refused while metrics counted it.
func TestKnownMethodsAccepted(t *testing.T) {
	e := newEnv(t)
	res := e.apply(`{"jsonrpc":"2.0","method":"session/set_model","params":{"sessionId":"s","modelId":"m"}}`,
		`{"jsonrpc":"2.0","method":"document/didSave","params":{}}`)
	if len(res.Errors) != 0 {
		t.Fatalf("known methods refused: %+v", res.Errors)
	}
}

func TestBadMessagesDoNotLoseGoodOnes(t *testing.T) {
	e := newEnv(t)
	res := e.apply(
		upd("s", v1("pending:a")),
		`{"jsonrpc":"2.0","method":"nope/what","params":{}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"plan","entries":[]}}}`,
		upd("s", `{"sessionUpdate":"plan_update","plan":{"type":"items","entries":[]}}`),
		upd("s", v1("completed:a")),
	)
	if res.Applied != 2 || len(res.Errors) != 3 {
		t.Fatalf("result = %+v", res)
	}
	want := map[int]int{2: acp.CodeMethodNotFound, 3: acp.CodeInvalidParams, 4: acp.CodeInvalidParams}
	for _, er := range res.Errors {
		if want[er.Line] != er.Code || er.Message == "" {
			t.Errorf("error %+v, want code %d", er, want[er.Line])
		}
	}
	if p := e.plan("s", "main"); p.Revision != 2 {
		t.Fatalf("revision = %d", p.Revision)
	}
}

// Errors and warnings are listed up to plans.MaxReportedIssues each and counted in full.
func TestIssuesAreCapped(t *testing.T) {
	e := newEnv(t)
	lines := []string{upd("s", v1("pending:a"))}
	for range 250 {
		lines = append(lines, `{"jsonrpc":"2.0","method":"nope/what","params":{}}`,
			upd("s", `{"sessionUpdate":"plan","entries":[{"content":"bad","priority":"urgent","status":"pending"}]}`))
	}
	res := e.apply(lines...)
	if res.Applied != 251 || res.ErrorCount != 250 || len(res.Errors) != plans.MaxReportedIssues ||
		res.WarningCount != 250 || len(res.Warnings) != plans.MaxReportedIssues {
		t.Fatalf("applied %d, errors %d of %d, warnings %d of %d", res.Applied, len(res.Errors), res.ErrorCount, len(res.Warnings), res.WarningCount)
	}
	if res.Errors[0].Line != 2 || res.Errors[99].Line != 200 {
		t.Errorf("errors listed from line %d to %d, want the first ones", res.Errors[0].Line, res.Errors[99].Line)
	}
}

func TestSessionFromInitializeAndNew(t *testing.T) {
	e := newEnv(t)
	e.apply(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"my-agent","title":"My Agent","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/home/u/proj","mcpServers":[]}}`,
		// The agent's own request with the same id travels the other way and must not confuse pairing.
		`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"sess-9"}}`,
		upd("sess-9", v1("pending:x")),
	)
	sess, err := e.store.Session(context.Background(), "sess-9")
	if err != nil {
		t.Fatal(err)
	}
	if sess.Cwd != "/home/u/proj" || sess.Agent != "my-agent" || sess.Name() != "My Agent" {
		t.Fatalf("session = %+v", sess)
	}
}

func TestLoadReplayIsMarked(t *testing.T) {
	e := newEnv(t)
	e.apply(
		`{"jsonrpc":"2.0","id":7,"method":"session/load","params":{"sessionId":"s","cwd":"/p","mcpServers":[]}}`,
		upd("s", v1("completed:old")),
		`{"jsonrpc":"2.0","id":7,"result":null}`,
	)
	if p := e.plan("s", "main"); !p.Replayed {
		t.Fatal("update during session/load not marked as replay")
	}
	e.apply(upd("s", v1("pending:new")))
	if p := e.plan("s", "main"); p.Replayed {
		t.Fatal("live update after load marked as replay")
	}
}

func TestToolCallMerge(t *testing.T) {
	e := newEnv(t)
	e.apply(upd("s", `{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Read x","kind":"read","status":"pending","content":[{"type":"content","content":{"type":"text","text":"a"}}]}`))
	e.apply(upd("s", `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[{"type":"text","text":"bare"}]}`))
	tc, err := e.store.ToolCall(context.Background(), "s", "c1")
	if err != nil {
		t.Fatal(err)
	}
	if tc.Title != "Read x" || tc.Kind != "read" || tc.Status != "completed" {
		t.Fatalf("tool call = %+v", tc)
	}
	if !strings.Contains(string(tc.Content), `"type":"content"`) || strings.Contains(string(tc.Content), `"text":"a"`) {
		t.Fatalf("content not replaced and wrapped: %s", tc.Content)
	}
}

func TestActivity(t *testing.T) {
	e := newEnv(t)
	chunk := func(text string) string {
		return upd("s", `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`+text+`"}}`)
	}
	e.apply(chunk("Hello, "), chunk("wor"))
	e.apply(chunk("ld"), upd("s", `{"sessionUpdate":"_vendor/thing","x":1}`), upd("s", `{"sessionUpdate":"current_mode_update","modeId":"code"}`))
	acts, err := e.store.Activity(context.Background(), "s", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 3 || acts[0].Text != "Hello, world" || acts[1].Kind != "_vendor/thing" || !strings.Contains(string(acts[1].Raw), `"x":1`) {
		t.Fatalf("activity = %+v", acts)
	}
	if s, _ := e.store.Session(context.Background(), "s"); s.Mode != "code" {
		t.Fatalf("mode = %q", s.Mode)
	}
}

// Chunks join into one message with their own spacing; anything else between two chunks ends the
// message, in one batch or across batches, with or without a messageId.
func TestMessageBoundaries(t *testing.T) {
	chunk := func(text, id string) string {
		mid := ""
		if id != "" {
			mid = `,"messageId":"` + id + `"`
		}
		return upd("s", `{"sessionUpdate":"agent_message_chunk"`+mid+`,"content":{"type":"text","text":"`+text+`"}}`)
	}
	planUpd := upd("s", `{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"m","content":"x"}}`)
	thought := upd("s", `{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"}}`)
	tests := []struct {
		name    string
		batches [][]string
		want    []string // the messages' texts, oldest first
	}{
		{"spacing kept", [][]string{{chunk("Here is ", ""), chunk("the plan.\\n", ""), chunk(" Next", "")}}, []string{"Here is the plan.\n Next"}},
		{"a plan between, one batch", [][]string{{chunk("next to it.", ""), planUpd, chunk("Waiting", "")}}, []string{"next to it.", "Waiting"}},
		{"a plan between, across batches", [][]string{{chunk("next to it.", "")}, {planUpd}, {chunk("Waiting", "")}}, []string{"next to it.", "Waiting"}},
		{"across batches, nothing between", [][]string{{chunk("Hel", "")}, {chunk("lo", "")}}, []string{"Hello"}},
		{"a thought between", [][]string{{chunk("a", ""), thought, chunk("b", "")}}, []string{"a", "hmm", "b"}},
		{"new messageId", [][]string{{chunk("a", "m1"), chunk("b", "m2"), chunk("c", "m2")}}, []string{"a", "bc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for _, b := range tt.batches {
				e.apply(b...)
			}
			acts, err := e.store.Activity(context.Background(), "s", 10)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range acts {
				if strings.HasSuffix(a.Kind, "_chunk") {
					got = append(got, a.Text)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("messages = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRestartKeepsEverything(t *testing.T) {
	e := newEnv(t)
	e.apply(upd("s1", v1("pending:a")), upd("s2", `{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"m","content":"x"}}`))
	before, seq, _ := e.svc.Overview(context.Background())
	if err := e.db.Close(); err != nil {
		t.Fatal(err)
	}
	e.open()
	after, seq2, err := e.svc.Overview(context.Background())
	if err != nil || seq != seq2 || len(before) != 2 || len(after) != 2 {
		t.Fatalf("before %d (seq %d) after %d (seq %d) err %v", len(before), seq, len(after), seq2, err)
	}
	e.apply(upd("s1", v1("completed:a")))
	if p := e.plan("s1", "main"); p.Revision != 2 || p.Seq <= seq {
		t.Fatalf("after restart: rev %d seq %d (was %d)", p.Revision, p.Seq, seq)
	}
}

func TestIdleAndEndedSessionsLeaveOverview(t *testing.T) {
	e := newEnv(t)
	e.apply(upd("old", v1("pending:a")))
	e.now = e.now.Add(2 * time.Hour)
	e.apply(upd("new", v1("pending:b")), upd("gone", v1("pending:c")))
	if _, err := e.svc.EndSession(context.Background(), "gone"); err != nil {
		t.Fatal(err)
	}
	groups, _, _ := e.svc.Overview(context.Background())
	if len(groups) != 1 || groups[0].Session.ID != "new" {
		t.Fatalf("overview = %+v", groups)
	}
	ids, _, _ := e.svc.ChangedSince(context.Background(), 1)
	if len(ids) == 0 {
		t.Fatal("ChangedSince found nothing")
	}
}

func TestManyUpdatesInOneBatchKeepEveryRevision(t *testing.T) {
	e := newEnv(t)
	var lines []string
	for i := range 50 {
		lines = append(lines, upd("s", v1(fmt.Sprintf("pending:step %d", i))))
	}
	e.apply(lines...)
	h, _ := e.svc.History(context.Background(), "s", "main")
	if len(h) != 50 || h[49].Revision != 50 || h[49].Plan.Entries[0].Content != "step 49" {
		t.Fatalf("history has %d revisions", len(h))
	}
}

func TestLargePlan(t *testing.T) {
	e := newEnv(t)
	entries := make([]string, 10000)
	for i := range entries {
		entries[i] = fmt.Sprintf("pending:entry %d", i)
	}
	e.apply(upd("s", v1(entries...)))
	if p := e.plan("s", "main"); len(p.Entries) != 10000 {
		t.Fatalf("entries = %d", len(p.Entries))
	}
}

func TestRemovingAnUnknownPlanStoresNothing(t *testing.T) {
	e := newEnv(t)
	e.apply(upd("s", `{"sessionUpdate":"plan_removed","planId":"never-seen"}`), upd("s", `{"sessionUpdate":"plan","entries":[]}`))
	if _, err := e.store.Plan(context.Background(), "s", "never-seen"); err == nil {
		t.Fatal("a removal of an unknown plan stored a plan")
	}
	if ps, _ := e.store.SessionPlans(context.Background(), "s"); len(ps) != 0 {
		t.Fatalf("session has %d plans", len(ps))
	}
}

// TestSessionOrigin: an adapter's session/new says where the agent runs; a host that is this
// machine is not recorded, another one is, and the agent's own session id always is.
func TestSessionOrigin(t *testing.T) {
	for _, c := range []struct{ host, want string }{{"this-box", ""}, {"ci-runner-7", "ci-runner-7"}, {"", ""}} {
		e := newEnv(t)
		e.svc = plans.NewService(e.store, plans.Config{Host: "this-box"})
		e.apply(
			`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/src","mcpServers":[],"_meta":{"plandash":{"host":"`+c.host+`","agentSessionId":"abc-123"}}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"claude-code:abc-123"}}`,
		)
		sess, err := e.svc.SessionOnly(context.Background(), "claude-code:abc-123")
		if err != nil {
			t.Fatal(err)
		}
		if sess.Host != c.want || sess.AgentSessionID != "abc-123" || sess.Cwd != "/src" {
			t.Errorf("host %q: session %+v", c.host, sess)
		}
	}
}
