package acpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/plandash/plandash/internal/acp"
)

// permissions routes permission requests between the agent, the IDE and the broker. The first
// answer wins: when the dashboard answers, the proxy replies to the agent itself, sends the IDE
// $/cancel_request for its copy and swallows the IDE's late reply.
type permissions struct {
	mode              Approvals
	broker            PermissionBroker
	toAgent, toClient *peerWriter
	log               *slog.Logger

	calls callQueue // the broker's calls, made in order by one goroutine

	mu      sync.Mutex
	pending map[string]*pendingPerm // by idKey of the agent's request id
	swallow []string                // IDE replies to drop, oldest first
	busy    atomic.Bool             // pending or swallow is non-empty: the IDE's frames need a look

	offers []func() // Offer calls waiting until the request has reached the IDE (agent→IDE goroutine only)

	sessions sessionTracker // for Cursor plans that name no session
}

type pendingPerm struct {
	req     PermissionRequest
	cursor  bool           // a Cursor extension request, answered in Cursor's nested form
	ask     *acp.CursorAsk // a cursor/ask_question (else, with cursor, a cursor/create_plan)
	offered bool           // the broker has it
	early   *Resolution    // it ended before it was offered
}

// maxSwallow bounds the IDE replies waited for: an IDE that honours $/cancel_request may never send one.
const maxSwallow = 1024

func newPermissions(mode Approvals, b PermissionBroker, toAgent, toClient *peerWriter, log *slog.Logger) *permissions {
	ps := &permissions{mode: mode, broker: b, toAgent: toAgent, toClient: toClient, log: log, pending: map[string]*pendingPerm{}}
	ps.calls.wake = make(chan struct{}, 1)
	go ps.calls.run()
	return ps
}

func (ps *permissions) updateBusy() { ps.busy.Store(len(ps.pending)+len(ps.swallow) > 0) }

// fromAgent takes permission requests (and the agent's withdrawals of them).
func (ps *permissions) fromAgent(line []byte) verdict {
	isReq := bytes.Contains(line, []byte(acp.MethodRequestPermission)) || bytes.Contains(line, []byte(acp.MethodCursorCreatePlan)) ||
		bytes.Contains(line, []byte(acp.MethodCursorAskQuestion))
	if !isReq && !(ps.busy.Load() && bytes.Contains(line, []byte(acp.MethodCancelRequest))) {
		return pass
	}
	msgs, err := acp.DecodeLine(line)
	if err != nil || len(msgs) != 1 {
		return pass
	}
	m := msgs[0]
	switch {
	case m.IsRequest() && m.Method == acp.MethodRequestPermission:
		return ps.request(m)
	case m.IsRequest() && m.Method == acp.MethodCursorCreatePlan:
		return ps.cursorPlan(m)
	case m.IsRequest() && m.Method == acp.MethodCursorAskQuestion:
		return ps.cursorAsk(m)
	case m.IsNotification() && m.Method == acp.MethodCancelRequest:
		return ps.withdrawn(m)
	}
	return pass
}

func (ps *permissions) request(m acp.Message) verdict {
	key, ok := acp.IDKey(m.ID)
	p, err := acp.DecodeRequestPermissionParams(m.Params)
	if !ok || err != nil {
		return pass // not something the dashboard could answer; the IDE deals with it
	}
	req := PermissionRequest{ID: m.ID, SessionID: p.SessionID, Params: m.Params, Options: p.Options}
	return ps.hold(key, &pendingPerm{req: req})
}

// cursorPlan holds Cursor's blocking cursor/create_plan at the gate like a permission request.
func (ps *permissions) cursorPlan(m acp.Message) verdict {
	key, ok := acp.IDKey(m.ID)
	req, ok2 := cursorPlanRequest(m.ID, m.Params, &ps.sessions)
	if !ok || !ok2 {
		return pass
	}
	return ps.hold(key, &pendingPerm{req: req, cursor: true})
}

// cursorAsk offers Cursor's blocking cursor/ask_question to the dashboard like a permission
// request (proxy_cursor_question.go).
func (ps *permissions) cursorAsk(m acp.Message) verdict {
	key, ok := acp.IDKey(m.ID)
	req, ask, ok2 := cursorAskRequest(m.ID, m.Params, &ps.sessions)
	if !ok || !ok2 {
		return pass
	}
	return ps.hold(key, &pendingPerm{req: req, cursor: true, ask: &ask})
}

// hold records a request the dashboard may answer, and withholds it from the IDE when the
// dashboard alone answers.
func (ps *permissions) hold(key string, pp *pendingPerm) verdict {
	pp.req.InIDE = ps.mode == ApprovalsBoth
	ps.mu.Lock()
	ps.pending[key] = pp
	ps.updateBusy()
	ps.mu.Unlock()
	// Offered only once the request has been written to the IDE: a dashboard answering at once
	// must not send the IDE a $/cancel_request for a request it has not seen yet.
	ps.offers = append(ps.offers, func() { ps.offer(pp, key) })
	if ps.mode == ApprovalsDashboard {
		return drop
	}
	return pass
}

// offer hands a request to the broker, and its end too if it ended in the meantime. Calls are
// queued under ps.mu, so the broker sees them in the order they happened.
func (ps *permissions) offer(pp *pendingPerm, key string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	pp.offered = true
	req := pp.req // a copy: ideAnswered may change InIDE later, under ps.mu
	ps.calls.add(func() { ps.broker.Offer(req, ps.answerer(key)) })
	if r := pp.early; r != nil {
		ps.calls.add(func() { ps.broker.Resolved(pp.req.ID, *r) })
	}
}

// resolved tells the broker a request ended, never before its Offer.
func (ps *permissions) resolved(pp *pendingPerm, r Resolution) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !pp.offered {
		pp.early = &r
		return
	}
	ps.calls.add(func() { ps.broker.Resolved(pp.req.ID, r) })
}

// runOffers is called by the agent→IDE goroutine after each write.
func (ps *permissions) runOffers() {
	for _, f := range ps.offers {
		f()
	}
	clear(ps.offers)
	ps.offers = ps.offers[:0]
}

// withdrawn handles the agent's $/cancel_request for its own permission request.
func (ps *permissions) withdrawn(m acp.Message) verdict {
	p, err := acp.DecodeCancelRequestParams(m.Params)
	key, ok := acp.IDKey(p.RequestID)
	if err != nil || !ok {
		return pass
	}
	ps.mu.Lock()
	pp := ps.pending[key]
	delete(ps.pending, key)
	ps.updateBusy()
	ps.mu.Unlock()
	if pp == nil {
		return pass
	}
	if !pp.req.InIDE {
		// The proxy is the one asked, so it owes the agent an answer (spec §3.2).
		ps.toAgent.inject(errorFrame(pp.req.ID, -32800, "Request cancelled"))
		ps.resolved(pp, Resolution{By: ByAgent})
		return drop
	}
	ps.resolved(pp, Resolution{By: ByAgent})
	return pass // the IDE answers it, and that answer is forwarded as usual
}

// fromClient watches the IDE's answers and turn cancellations while requests are open.
func (ps *permissions) fromClient(line []byte) verdict {
	ps.sessions.observeClient(line)
	if !ps.busy.Load() {
		return pass
	}
	msgs, err := acp.DecodeLine(line)
	if err != nil || len(msgs) != 1 {
		return pass
	}
	m := msgs[0]
	switch {
	case m.IsResponse():
		return ps.ideAnswered(m)
	case m.IsNotification() && m.Method == acp.MethodSessionCancel:
		ps.turnCancelled(m)
	}
	return pass
}

func (ps *permissions) ideAnswered(m acp.Message) verdict {
	key, ok := acp.IDKey(m.ID)
	if !ok {
		return pass
	}
	ps.mu.Lock()
	if i := indexOf(ps.swallow, key); i >= 0 {
		ps.swallow = append(ps.swallow[:i], ps.swallow[i+1:]...)
		ps.updateBusy()
		ps.mu.Unlock()
		return drop // the dashboard answered first; the agent already has its answer
	}
	pp := ps.pending[key]
	if pp != nil && pp.cursor && m.Error != nil && m.Error.Code == acp.CodeMethodNotFound {
		// An IDE that does not know Cursor's methods refuses the plan or question at once; the
		// agent would lose it (spec/agents.md §5). The dashboard is still asked, so it decides
		// alone.
		pp.req.InIDE = false
		ps.mu.Unlock()
		return drop
	}
	delete(ps.pending, key)
	ps.updateBusy()
	ps.mu.Unlock()
	if pp != nil {
		var o acp.PermissionOutcome
		switch {
		case m.Result == nil:
		case pp.ask != nil:
			o = askPermissionOutcome(*pp.ask, m.Result)
		case pp.cursor:
			o = permissionOutcome(m.Result)
		default:
			o, _ = acp.DecodePermissionOutcome(m.Result)
		}
		ps.resolved(pp, Resolution{By: ByIDE, Outcome: o})
	}
	return pass
}

// turnCancelled answers "cancelled" for the session's requests only the dashboard was asked, as
// the client must after session/cancel (spec §7.4); the IDE answers its own copies.
func (ps *permissions) turnCancelled(m acp.Message) {
	p, err := acp.DecodeCancelParams(m.Params)
	if err != nil {
		return
	}
	var ended []*pendingPerm
	ps.mu.Lock()
	for key, pp := range ps.pending {
		if pp.req.SessionID == p.SessionID && !pp.req.InIDE {
			ended = append(ended, pp)
			delete(ps.pending, key)
		}
	}
	ps.updateBusy()
	ps.mu.Unlock()
	cancelled := acp.PermissionOutcome{Outcome: "cancelled"}
	for _, pp := range ended {
		ps.toAgent.inject(pp.resultFrame(cancelled))
		ps.resolved(pp, Resolution{By: ByProxy, Outcome: cancelled})
	}
}

// answerer is the dashboard's way to answer one request.
func (ps *permissions) answerer(key string) func(acp.PermissionOutcome) error {
	return func(o acp.PermissionOutcome) error {
		ps.mu.Lock()
		pp := ps.pending[key]
		if pp == nil {
			ps.mu.Unlock()
			return ErrPermissionResolved
		}
		if err := checkOutcome(pp.req, o); err != nil {
			ps.mu.Unlock()
			return err
		}
		delete(ps.pending, key)
		if pp.req.InIDE {
			if len(ps.swallow) >= maxSwallow {
				ps.swallow = ps.swallow[1:]
			}
			ps.swallow = append(ps.swallow, key)
		}
		ps.updateBusy()
		ps.mu.Unlock()
		// The IDE hears that its copy is moot before the agent can react to the answer: what the
		// agent sends next must not reach the IDE ahead of the $/cancel_request.
		if pp.req.InIDE {
			ps.toClient.inject(cancelRequestFrame(pp.req.ID))
		}
		ps.toAgent.inject(pp.resultFrame(o))
		ps.resolved(pp, Resolution{By: ByDashboard, Outcome: o})
		return nil
	}
}

func checkOutcome(req PermissionRequest, o acp.PermissionOutcome) error {
	switch o.Outcome {
	case "cancelled":
		return nil
	case "selected":
		for _, opt := range req.Options {
			if opt.OptionID == o.OptionID {
				return nil
			}
		}
		return fmt.Errorf("option %q was not offered", o.OptionID)
	}
	return fmt.Errorf("outcome must be selected or cancelled, not %q", o.Outcome)
}

// agentGone closes every open request: nobody is waiting for their answers any more.
func (ps *permissions) agentGone() {
	ps.mu.Lock()
	ended := ps.pending
	ps.pending = map[string]*pendingPerm{}
	ps.updateBusy()
	ps.mu.Unlock()
	for _, pp := range ended {
		ps.resolved(pp, Resolution{By: ByAgent})
	}
	ps.calls.close()
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// The proxy's own frames. They are built with encoding/json so ids and option ids are quoted
// exactly as JSON requires.

// resultFrame answers the agent's request with o, in the form its method takes.
func (pp *pendingPerm) resultFrame(o acp.PermissionOutcome) []byte {
	if pp.ask != nil {
		return cursorAskResultFrame(pp.req.ID, *pp.ask, o)
	}
	if pp.cursor {
		return cursorResultFrame(pp.req.ID, o)
	}
	return resultFrame(pp.req.ID, o)
}

func resultFrame(id json.RawMessage, o acp.PermissionOutcome) []byte {
	outcome := map[string]any{"outcome": o.Outcome}
	if o.Outcome == "selected" {
		outcome["optionId"] = o.OptionID
		// SelectedPermissionOutcome's _meta carries the dashboard's feedback with a rejection:
		// the schema's place for it, read by agents that look and ignored by the rest.
		if o.Feedback != "" {
			outcome["_meta"] = acp.FeedbackMeta(o.Feedback)
		}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"outcome": outcome}})
	return b
}

func errorFrame(id json.RawMessage, code int, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return b
}

func cancelRequestFrame(id json.RawMessage) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": acp.MethodCancelRequest, "params": map[string]any{"requestId": id}})
	return b
}
