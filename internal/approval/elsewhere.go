package approval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// HandOver records that the agent's own dialog took request id: the person answered there
// (Claude Code stopped the gate's hook), so plandash's answer no longer reaches the agent, and
// what was answered is not known yet. by names the channel ("terminal"); note says it in
// words ("answered in the terminal — outcome not known yet"). The request becomes Elsewhere:
// pages stop offering to decide it, and the agent's adapter settles it (Settle) once an event
// shows the outcome. A request no longer pending is returned as it stands.
func (g *Gate) HandOver(ctx context.Context, id, by, note string) (Request, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.store.Get(ctx, id)
	if err != nil || r.Status != Pending {
		return r, err
	}
	r, err = g.handOverLocked(ctx, r, &Handover{By: by, At: g.cfg.Now(), Note: note}, note)
	if d, lost := errors.AsType[*DecidedError](err); lost {
		return d.Request, nil // decided (or handed over) a moment before, elsewhere
	}
	return r, err
}

// handOverLocked stores r as Elsewhere with h, and comment in the audit trail; g.mu is held.
func (g *Gate) handOverLocked(ctx context.Context, r Request, h *Handover, comment string) (Request, error) {
	r.Status, r.Handover = Elsewhere, h
	seq, err := g.nextSeq(ctx)
	if err != nil {
		return r, err
	}
	r.Seq = seq
	ev := g.audit(EventElsewhere, r, h.By)
	ev.Comment = comment
	ok, err := g.store.Decide(ctx, r, []AuditEvent{ev})
	if err != nil {
		return r, err
	}
	if !ok {
		cur, err := g.store.Get(ctx, r.ID)
		if err != nil {
			return cur, err
		}
		return cur, &DecidedError{cur}
	}
	g.changed(ctx, Change{Request: &r})
	return r, nil
}

// handOverAtDeadline is the deadline of a request whose agent decides by itself once plandash
// stops waiting (Then): nobody decided here, and the gate's default outcome is not what
// happens, so the request goes to the agent's dialog instead of being recorded as the
// default; g.mu is held.
func (g *Gate) handOverAtDeadline(ctx context.Context, r Request) (Request, error) {
	note := r.Then + " — outcome not known yet"
	comment := fmt.Sprintf("nobody decided here before the deadline (%s): %s", r.Deadline.UTC().Format(time.RFC3339), note)
	return g.handOverLocked(ctx, r, &Handover{By: "deadline", At: g.cfg.Now(), Note: note}, comment)
}

// Settle records the outcome the agent's own dialog gave request id, once an event of the
// agent shows it: approve (the plan went ahead) or reject (the comment says what showed it was
// declined). It settles a request handed over (Elsewhere) or still pending, whatever its
// deadline: the answer was given. in.By names the channel ("terminal").
func (g *Gate) Settle(ctx context.Context, id string, in DecisionInput) (Request, error) {
	if in.Action != Approve && in.Action != Reject {
		return Request{}, invalid("an answer given elsewhere is recorded as approve or reject, not %s", in.Action)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.store.Get(ctx, id)
	if err != nil {
		return r, err
	}
	if r.Status != Pending && r.Status != Elsewhere {
		if repeats(r, in.Key, in.By) {
			return r, nil
		}
		return r, &DecidedError{r}
	}
	if err := g.checkDecision(r, &in); err != nil {
		return r, err
	}
	d := &Decision{Action: in.Action, By: in.By, At: g.cfg.Now(), Comment: strings.TrimSpace(in.Comment), Key: in.Key}
	if in.Action == Approve {
		p := r.Plan
		d.Plan = &p
	}
	return g.decideLocked(ctx, r, d)
}

// Elsewhere lists the requests the agents' own dialogs have, their outcome not known yet,
// oldest first.
func (g *Gate) Elsewhere(ctx context.Context) ([]Request, error) { return g.store.Elsewhere(ctx) }

// Settles reports whether r, as a Store's Decide receives it, settles a request that was
// Elsewhere: Decide then also accepts a stored request in that status.
func (r Request) Settles() bool {
	return r.Handover != nil && r.Status != Pending && r.Status != Elsewhere
}
