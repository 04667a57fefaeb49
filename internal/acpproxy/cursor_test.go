package acpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// chunkText is the text of an agent_message_chunk, or "".
func chunkText(m acp.Message) string {
	if m.Method != acp.MethodSessionUpdate {
		return ""
	}
	n, _, err := acp.DecodeSessionNotification(m.Params)
	if err != nil || n.Update.Chunk == nil {
		return ""
	}
	return n.Update.Chunk.Text
}

// TestProxyCursorTodosBecomePlans: cursor/update_todos reaches the IDE as the agent sent it,
// and the dashboard gets it as the session's checklist too (merged, statuses normalised).
func TestProxyCursorTodosBecomePlans(t *testing.T) {
	for _, mode := range []Approvals{ApprovalsIDE, ApprovalsBoth} {
		t.Run(mode.String(), func(t *testing.T) {
			tap := NewTap(TapOptions{})
			p := &Proxy{Tap: tap, Approvals: mode}
			if mode != ApprovalsIDE {
				p.Broker = newFakeBroker()
			}
			r := startRun(t, p)
			sess := r.ide.open(false)
			var todos []string
			promptUntilDone(t, r.ide, sess, "todos", func(m acp.Message) {
				if m.Method == acp.MethodCursorUpdateTodos {
					todos = append(todos, string(m.Raw))
				}
			})
			if code := r.wait(); code != 0 {
				t.Fatalf("exit %d", code)
			}
			if len(todos) != 2 {
				t.Fatalf("the IDE got %d cursor/update_todos, want 2", len(todos))
			}
			got := r.ide.received()
			for _, td := range todos {
				if !bytes.Contains(got, []byte(td+"\n")) {
					t.Errorf("the IDE did not get the frame byte for byte: %s", td)
				}
			}
			if k := updates(t, got); contains(k, acp.KindPlan) {
				t.Errorf("the IDE got the dashboard's plan too: %v", k)
			}
			var last *acp.PlanContent
			for _, line := range tapped(tap) {
				msgs, err := acp.DecodeLine([]byte(line))
				if err != nil || len(msgs) != 1 || msgs[0].Method != acp.MethodSessionUpdate {
					continue
				}
				n, _, err := acp.DecodeSessionNotification(msgs[0].Params)
				if err != nil {
					t.Fatalf("the tap made a bad update: %v\n%s", err, line)
				}
				if n.Update.Plan != nil {
					if n.SessionID != sess {
						t.Errorf("the checklist went to session %q, want %q", n.SessionID, sess)
					}
					last = n.Update.Plan
				}
			}
			if last == nil {
				t.Fatal("the dashboard got no checklist")
			}
			var entries []string
			for _, e := range last.Entries {
				entries = append(entries, e.Content+"="+e.Status)
			}
			want := "Read the code=completed Write the fix=completed Run the tests=pending"
			if strings.Join(entries, " ") != want {
				t.Errorf("the checklist is %q, want %q", entries, want)
			}
		})
	}
}

// TestProxyCursorPlanGate: cursor/create_plan is offered at the gate; the first answer wins,
// and the agent always hears it nested, as Cursor requires.
func TestProxyCursorPlanGate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode Approvals
		// ide answers the IDE's copy ("" leaves it unanswered); dash answers on the dashboard
		// (zero: not at all).
		ide      string
		dash     acp.PermissionOutcome
		want     string // what the agent heard
		resolved string // the broker's last call
	}{
		{"dashboard accepts first", ApprovalsBoth, "", acp.PermissionOutcome{Outcome: "selected", OptionID: "accept"},
			"accepted", "by dashboard: selected accept"},
		{"IDE rejects first", ApprovalsBoth, `{"outcome":{"outcome":"rejected","reason":"later"}}`, acp.PermissionOutcome{},
			"rejected", "by ide: selected reject"},
		{"IDE without Cursor's methods", ApprovalsBoth, "-32601", acp.PermissionOutcome{Outcome: "selected", OptionID: "reject"},
			"rejected", "by dashboard: selected reject"},
		{"dashboard only", ApprovalsDashboard, "", acp.PermissionOutcome{Outcome: "cancelled"},
			"cancelled", "by dashboard: cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			broker := newFakeBroker()
			proxy := &Proxy{Approvals: tc.mode, Broker: broker}
			r := startRun(t, proxy)
			sess := r.ide.open(false)
			var heard string
			var ideSaw, ideCancelled bool
			answered := false
			// dashAnswer may run on a goroutine of its own: it reports with t.Error only.
			dashAnswer := func() {
				select {
				case o := <-broker.offers:
					if err := checkCursorOffer(o.req, sess); err != nil {
						t.Error(err)
					}
					if err := o.answer(tc.dash); err != nil {
						t.Errorf("the dashboard's answer: %v", err)
					}
				case <-time.After(testTimeout):
					t.Error("nothing was offered to the dashboard")
				}
			}
			if tc.mode == ApprovalsDashboard {
				// The IDE hears nothing until the dashboard answers.
				answered = true
				go dashAnswer()
			}
			promptUntilDone(t, r.ide, sess, "cursorplan", func(m acp.Message) {
				switch {
				case m.IsRequest() && m.Method == acp.MethodCursorCreatePlan:
					ideSaw = true
					switch {
					case tc.ide == "-32601":
						r.ide.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID))
						waitIDERefused(t, proxy, m.ID)
					case tc.ide != "":
						r.ide.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, tc.ide))
					}
				case m.Method == acp.MethodCancelRequest:
					ideCancelled = true
				}
				if s, ok := strings.CutPrefix(chunkText(m), "cursorplan: "); ok {
					heard = s
				}
				if !answered && tc.dash.Outcome != "" && ideSaw {
					answered = true
					dashAnswer()
				}
			})
			if heard != tc.want {
				t.Errorf("the agent heard %q, want %q", heard, tc.want)
			}
			if ideSaw != (tc.mode == ApprovalsBoth) {
				t.Errorf("the IDE saw the plan: %v, in mode %v", ideSaw, tc.mode)
			}
			if wantCancel := tc.mode == ApprovalsBoth && tc.ide == ""; ideCancelled != wantCancel {
				t.Errorf("the IDE was told to drop its copy: %v, want %v", ideCancelled, wantCancel)
			}
			calls := broker.waitCalls(t, 2)
			if !strings.HasSuffix(strings.TrimSpace(calls), tc.resolved) {
				t.Errorf("broker calls %q, want them to end %q", calls, tc.resolved)
			}
			if code := r.wait(); code != 0 {
				t.Fatalf("exit %d", code)
			}
		})
	}
}

// checkCursorOffer: the plan reaches the inbox as a plan-mode request it can render and answer.
func checkCursorOffer(req PermissionRequest, sess string) error {
	p, err := acp.DecodeRequestPermissionParams(req.Params)
	if err != nil {
		return fmt.Errorf("the offer is not a permission request the inbox can read: %v", err)
	}
	var raw struct {
		Plan string `json:"plan"`
	}
	if err := json.Unmarshal(p.ToolCall.RawInput, &raw); err != nil {
		return fmt.Errorf("the offer's rawInput is not an object: %v", err)
	}
	if p.SessionID != sess || req.SessionID != sess || p.ToolCall.Kind == nil || *p.ToolCall.Kind != "switch_mode" ||
		!strings.Contains(raw.Plan, "# Tighten login") || !strings.Contains(raw.Plan, "- [ ] Validate the form") || len(p.Options) != 2 {
		return fmt.Errorf("offered %s", req.Params)
	}
	return nil
}

// TestProxyUnknownRequestNeverStalls: a request of a method the proxy does not know goes to
// the IDE untouched, and the IDE's answer back to the agent, whatever the proxy does on the side.
func TestProxyUnknownRequestNeverStalls(t *testing.T) {
	for _, mode := range []Approvals{ApprovalsIDE, ApprovalsBoth, ApprovalsDashboard} {
		t.Run(mode.String(), func(t *testing.T) {
			p := &Proxy{Tap: NewTap(TapOptions{}), Approvals: mode, PlanUpdates: mode == ApprovalsBoth}
			if mode != ApprovalsIDE {
				p.Broker = newFakeBroker()
			}
			r := startRun(t, p)
			sess := r.ide.open(false)
			var heard string
			promptUntilDone(t, r.ide, sess, "unknown", func(m acp.Message) {
				if m.IsRequest() && m.Method == "_example/unknown" {
					r.ide.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}`, m.ID))
				}
				if s, ok := strings.CutPrefix(chunkText(m), "unknown: "); ok {
					heard = s
				}
			})
			if heard != `{"ok":true}` {
				t.Errorf("the agent heard %q, want the IDE's answer", heard)
			}
			if code := r.wait(); code != 0 {
				t.Fatalf("exit %d", code)
			}
		})
	}
}

// waitIDERefused waits until the proxy has read the IDE's refusal of request id, so that the
// dashboard answers after it, as a person would.
func waitIDERefused(t *testing.T, p *Proxy, id json.RawMessage) {
	t.Helper()
	key, _ := acp.IDKey(id)
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		p.perms.mu.Lock()
		pp := p.perms.pending[key]
		refused := pp != nil && !pp.req.InIDE
		p.perms.mu.Unlock()
		if refused {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the proxy did not take the IDE's refusal")
}
