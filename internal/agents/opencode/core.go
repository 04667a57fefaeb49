package opencode

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/plans"
)

// core is what the Watcher (plandash follows OpenCode's server) and the HookService (OpenCode's
// plugin posts to plandash) share: the sessions OpenCode described, the translation into plan
// updates, and the gate waits that OpenCode's own answer can end.
type core struct {
	fl        *Flavor
	apply     Applier
	gate      Gate // nil: only record
	host      string
	deadline  time.Duration
	planRoots files.PlanDirs
	log       *slog.Logger

	mu        sync.Mutex
	sessions  map[string]*SessionInfo // what session.created/updated said
	announced map[string]bool
	waiting   map[string]context.CancelCauseFunc // OpenCode request id → its wait at the gate
}

func newCore(fl *Flavor, apply Applier, gate Gate, host string, deadline time.Duration, planRoots []string, log *slog.Logger) *core {
	if deadline <= 0 {
		deadline = 12 * time.Hour
	}
	if log == nil {
		log = slog.Default()
	}
	return &core{fl: orOpenCode(fl), apply: apply, gate: gate, host: host, deadline: deadline, planRoots: files.PlanDirs(planRoots), log: log,
		sessions: map[string]*SessionInfo{}, announced: map[string]bool{}, waiting: map[string]context.CancelCauseFunc{}}
}

// remember keeps what session.created/updated said of a session.
func (c *core) remember(info SessionInfo) {
	if info.ID == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.sessions) >= maxSessions {
		clear(c.sessions)
	}
	c.sessions[info.ID] = &info
}

// rememberDir records a session's directory and host when nothing better is known (the plugin
// names the directory OpenCode runs in with every event).
func (c *core) rememberDir(id, dir, host string) {
	if id == "" || dir == "" {
		return
	}
	c.mu.Lock()
	_, known := c.sessions[id]
	c.mu.Unlock()
	if !known {
		c.remember(SessionInfo{ID: id, Directory: dir, Host: host})
	}
}

// register makes the wait for OpenCode request id, which ends when OpenCode reports the request
// answered (see answered). ok is false when the request is already waited for.
func (c *core) register(ctx context.Context, id string) (context.Context, context.CancelCauseFunc, bool) {
	hctx, cancel := context.WithCancelCause(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.waiting[id]; dup {
		cancel(nil)
		return nil, nil, false
	}
	c.waiting[id] = cancel
	return hctx, cancel, true
}

// unregister stops treating OpenCode's news of request id as an answer from elsewhere (the reply
// plandash sends causes it, and the wait is over).
func (c *core) unregister(id string) {
	c.mu.Lock()
	delete(c.waiting, id)
	c.mu.Unlock()
}

// answered ends the wait for request id: OpenCode was answered by another client, with outcome
// (Replied.Outcome; "" when its reply did not say).
func (c *core) answered(id, outcome string) {
	c.mu.Lock()
	cancel := c.waiting[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel(answeredElsewhere{outcome})
	}
}

// batch starts a batch for session id, announcing it the first time.
func (c *core) batch(id string) *batch {
	c.mu.Lock()
	defer c.mu.Unlock()
	var info *SessionInfo
	if !c.announced[id] {
		info = &SessionInfo{ID: id}
		if s := c.sessions[id]; s != nil {
			info = s
		}
		if len(c.announced) >= maxSessions {
			clear(c.announced)
		}
		c.announced[id] = true
	}
	return newBatch(c.fl, id, info, c.host)
}

// applyBatch applies b; failures are logged only (a missed update costs a stale view, never
// OpenCode's run).
func (c *core) applyBatch(ctx context.Context, b *batch) {
	items := make([]plans.Item, 0, len(b.out))
	for i, line := range b.out {
		decoded, err := acp.DecodeLine(line)
		if err != nil {
			c.log.Error("opencode: translated message does not decode", "err", err)
			return
		}
		for _, m := range decoded {
			items = append(items, plans.Item{Line: i + 1, Msg: m})
		}
	}
	res, err := c.apply.Apply(ctx, plans.NewStream(), items)
	if err != nil {
		c.log.Warn("opencode: apply", "session", b.sid, "err", err)
		return
	}
	for _, e := range res.Errors {
		c.log.Warn("opencode: update not applied", "session", b.sid, "line", e.Line, "err", e.Message)
	}
}

// todos records a session's whole todo list.
func (c *core) todos(ctx context.Context, p TodoUpdated) {
	b := c.batch(p.SessionID)
	b.todos(p.Todos)
	c.applyBatch(ctx, b)
}

// decide submits sub and waits for a person's decision. ok is false when there is nothing to
// send OpenCode: the request expired (OpenCode's prompt stays the way to answer), OpenCode was
// answered elsewhere (the request is closed as such), or plandash stopped waiting.
func (c *core) decide(ctx context.Context, sub approval.Submission) (approval.Request, bool) {
	r, _, err := c.gate.Submit(ctx, sub)
	if err != nil {
		c.log.Warn("opencode: submit to the gate", "err", err)
		return r, false
	}
	id := r.ID
	for !r.Decided() {
		r, err = c.gate.Wait(ctx, id, time.Minute)
		if ctx.Err() != nil {
			c.closeElsewhere(ctx, id)
			return r, false
		}
		if err != nil {
			c.log.Warn("opencode: wait for a decision", "request", id, "err", err)
			return r, false
		}
	}
	if r.Decision == nil || r.Decision.Expired || r.Decision.By == TerminalDecider {
		return r, false
	}
	return r, true
}

// closeElsewhere records a request whose wait ended because OpenCode's own prompt took it:
// what was answered there when its reply said (approved or declined), else the request is
// handed to that prompt, outcome not known: nobody rejected it, and plandash's answer no longer
// reaches OpenCode.
func (c *core) closeElsewhere(ctx context.Context, id string) {
	note := "plandash stopped waiting; " + c.fl.promptDecides() + " — outcome not known yet"
	var err error
	var ae answeredElsewhere
	switch {
	case errors.As(context.Cause(ctx), &ae) && ae.outcome == OutcomeApproved:
		_, err = c.gate.Settle(context.WithoutCancel(ctx), id, approval.DecisionInput{Action: approval.Approve, By: TerminalDecider, Comment: "answered in " + c.fl.Title + " — approved"})
	case errors.As(context.Cause(ctx), &ae) && ae.outcome == OutcomeDeclined:
		_, err = c.gate.Settle(context.WithoutCancel(ctx), id, approval.DecisionInput{Action: approval.Reject, By: TerminalDecider, Comment: "answered in " + c.fl.Title + " — declined"})
	case errors.As(context.Cause(ctx), &ae):
		note = "answered in " + c.fl.Title + " — outcome not known (its reply did not say how)"
		fallthrough
	default:
		_, err = c.gate.HandOver(context.WithoutCancel(ctx), id, TerminalDecider, note)
	}
	var de *approval.DecidedError
	if err != nil && !errors.As(err, &de) {
		c.log.Warn("opencode: close request", "request", id, "err", err)
	}
}

// PromptDecides is what happens when plandash does not decide (the deadline, or it stopped
// waiting): OpenCode's own prompt stays open and decides.
const PromptDecides = "OpenCode's prompt decides"

// planExit holds plan_exit's question at the gate, recording the plan as proposed, and returns
// the answer for OpenCode ("Yes" switches to the build agent, "No" keeps planning) and a
// function that records the plan's outcome once the answer is sent. ok is false when there is
// nothing to answer. The plan is the one given (the plugin read it inside OpenCode), else the
// file path names, read under the plan roots.
func (c *core) planExit(ctx context.Context, q QuestionAsked, path string, given PlanText) (answer string, done func(context.Context), ok bool) {
	md, file, why := given.Markdown, given.Path, ""
	if strings.TrimSpace(md) == "" {
		md, file, why = c.readPlan(q.SessionID, path)
	} else {
		md = hookkit.Truncate(md, MaxPlanFile)
		file = cmp.Or(file, path)
	}
	shown := md
	if strings.TrimSpace(shown) == "" {
		shown = q.Questions[0].Question
		if why != "" {
			shown += "\n\n_The plan file could not be read: " + why + "._"
		}
	}
	b := c.batch(q.SessionID)
	b.planMode(shown, file, "proposed")
	c.applyBatch(ctx, b)
	var txt strings.Builder
	fmt.Fprintf(&txt, "%s finished a plan in session `%s` and asks whether to implement it.\n\n", c.fl.Title, q.SessionID)
	if file != "" {
		fmt.Fprintf(&txt, "Plan file: `%s`\n\n", file)
	}
	txt.WriteString(c.fl.PlanChoices)
	txt.WriteString(c.fl.Title + "'s own prompt stays open meanwhile: the first answer wins.")
	r, ok := c.decide(ctx, approval.Submission{SessionID: c.fl.SessionKey(q.SessionID), Agent: c.fl.Title, Title: c.fl.planTitle(md),
		Context: txt.String(), Plan: approval.PlanBody{Type: approval.TypeMarkdown, Markdown: shown},
		Options: []approval.Action{approval.Approve, approval.Reject}, Timeout: approval.Duration(c.deadline), Default: approval.Reject, Then: c.fl.promptDecides()})
	if !ok {
		return "", nil, false
	}
	approved := r.Status == approval.Approved
	answer, state := c.fl.PlanAnswer(approved, strings.TrimSpace(r.Decision.Reason())), "rejected"
	if approved {
		state = "approved"
	}
	return answer, func(ctx context.Context) {
		b := c.batch(q.SessionID)
		b.planMode(shown, file, state)
		c.applyBatch(ctx, b)
	}, true
}

// permission holds a permission request at the gate and returns the reply body for OpenCode's
// POST /permission/{id}/reply: always (an approval whose comment says "always"), once, or
// reject (with the comment as the message).
func (c *core) permission(ctx context.Context, p PermissionAsked) (map[string]any, bool) {
	var md strings.Builder
	fmt.Fprintf(&md, "%s asks permission for **%s**", c.fl.Title, hookkit.Truncate(p.Permission, 256))
	if len(p.Patterns) > 0 {
		md.WriteString(":\n\n")
		for i, pat := range p.Patterns {
			if i == 32 {
				md.WriteString("- …\n")
				break
			}
			fmt.Fprintf(&md, "- `%s`\n", strings.ReplaceAll(hookkit.Truncate(pat, 2048), "`", "'"))
		}
	} else {
		md.WriteString(".\n")
	}
	ctxText := fmt.Sprintf(c.fl.Title+" session `%s` waits for this permission (it has no timeout).\n\n"+
		"- **Approve** allows it once; write `always` in your comment to allow %s from now on.\n"+
		"- **Reject** refuses it; your comment is sent to the agent.\n\n"+c.fl.Title+"'s own prompt stays open meanwhile: the first answer wins.",
		p.SessionID, strings.Join(p.Always, ", "))
	r, ok := c.decide(ctx, approval.Submission{SessionID: c.fl.SessionKey(p.SessionID), Agent: c.fl.Title,
		Title: hookkit.Truncate("Permission: "+p.Permission, approval.MaxTitle-10), Context: ctxText,
		Plan:    approval.PlanBody{Type: approval.TypeMarkdown, Markdown: md.String()},
		Options: []approval.Action{approval.Approve, approval.Reject}, Timeout: approval.Duration(c.deadline), Default: approval.Reject, Then: c.fl.promptDecides()})
	if !ok {
		return nil, false
	}
	body := map[string]any{"reply": "reject"}
	if r.Status == approval.Approved {
		body["reply"] = "once"
		if strings.EqualFold(strings.TrimSpace(r.Decision.Comment), "always") {
			body["reply"] = "always"
		}
	} else if cm := strings.TrimSpace(r.Decision.Reason()); cm != "" {
		body["message"] = cm
	}
	return body, true
}
