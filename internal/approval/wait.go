package approval

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// Get returns a request. A pending request whose deadline has passed is decided by its default
// outcome first, so nobody ever sees a request pending past its deadline.
func (g *Gate) Get(ctx context.Context, id string) (Request, error) {
	r, err := g.store.Get(ctx, id)
	if err != nil || r.Decided() || g.cfg.Now().Before(r.Deadline) {
		return r, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err = g.expireLocked(ctx, r)
	if d, lost := errors.AsType[*DecidedError](err); lost {
		// Another instance applied the outcome (or a person decided) first: a reader asked
		// for the request, and the decided request is its answer, whoever decided it.
		return d.Request, nil
	}
	return r, err
}

// Wait returns the request once it is decided, or as it stands after max (at most until its
// deadline, when the default outcome decides it). It returns early with ctx's error.
func (g *Gate) Wait(ctx context.Context, id string, limit time.Duration) (Request, error) {
	// Registered before reading, so a decision between the read and the select is not missed.
	w := g.addWaiter(id)
	defer g.dropWaiter(id, w)
	r, err := g.Get(ctx, id)
	if err != nil || r.Decided() || limit <= 0 {
		return r, err
	}
	g.wmu.Lock()
	if w.pending == nil {
		kept := r
		w.pending = &kept
	}
	g.wmu.Unlock()
	untilDeadline := r.Deadline.Sub(g.cfg.Now())
	deadlineFirst := untilDeadline <= limit
	t := time.NewTimer(min(limit, max(untilDeadline, 0)))
	defer t.Stop()
	select {
	case <-w.ch:
		return w.r, nil
	case <-ctx.Done():
		return r, ctx.Err()
	case <-t.C:
		if deadlineFirst {
			return g.Get(ctx, id)
		}
		return r, nil
	}
}

// Waiting reports how many clients wait on a request right now.
func (g *Gate) Waiting(id string) int {
	g.wmu.Lock()
	defer g.wmu.Unlock()
	if w := g.waiters[id]; w != nil {
		return w.n
	}
	return 0
}

func (g *Gate) addWaiter(id string) *waiter {
	g.wmu.Lock()
	defer g.wmu.Unlock()
	w := g.waiters[id]
	if w == nil {
		w = &waiter{ch: make(chan struct{})}
		g.waiters[id] = w
	}
	w.n++
	return w
}

func (g *Gate) dropWaiter(id string, w *waiter) {
	g.wmu.Lock()
	defer g.wmu.Unlock()
	w.n--
	if w.n == 0 && g.waiters[id] == w {
		delete(g.waiters, id)
	}
}

// ExpireDue applies the default outcome to every request past its deadline and reports how
// many it decided.
func (g *Gate) ExpireDue(ctx context.Context) (int, error) {
	n := 0
	for {
		due, err := g.store.Due(ctx, g.cfg.Now(), 200)
		if err != nil || len(due) == 0 {
			return n, err
		}
		for _, r := range due {
			g.mu.Lock()
			_, err := g.expireLocked(ctx, r)
			g.mu.Unlock()
			if _, lost := errors.AsType[*DecidedError](err); lost {
				continue // another instance's gate decided it first
			}
			if err != nil {
				return n, err
			}
			n++
		}
	}
}

// Run decides requests as their deadlines pass, until ctx ends, so pages and audit show the
// default outcome even when no client is waiting. Requests that expired while the server was
// down are decided at once.
func (g *Gate) Run(ctx context.Context) {
	for {
		// A request stored from here on is kicked for (deadlineAt), unless NextDeadline
		// below sees it.
		g.wakeAt.Store(0)
		if _, err := g.ExpireDue(ctx); err != nil && ctx.Err() == nil {
			g.cfg.Log.Error("approval: expire requests", "err", err)
		}
		wait := time.Minute // a bound, so a store error or a clock jump is retried
		if next, ok, err := g.store.NextDeadline(ctx); err == nil && ok {
			wait = min(wait, max(next.Sub(g.cfg.Now()), 0))
		}
		g.wakeAt.Store(g.cfg.Now().Add(wait).UnixNano())
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-g.kick:
			t.Stop()
		case <-t.C:
		}
	}
}

// deadlineAt tells Run of a pending request's deadline: a kick when it comes before Run's next
// look, or when Run is looking now (it may have read the deadlines before the request was
// stored).
func (g *Gate) deadlineAt(deadline time.Time) {
	if at := g.wakeAt.Load(); at != 0 && !deadline.Before(time.Unix(0, at)) {
		return
	}
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

// Pending lists pending requests, oldest first.
func (g *Gate) Pending(ctx context.Context) ([]Request, error) { return g.store.Pending(ctx, 0) }

// PendingSummaries lists pending requests as the inbox shows them, oldest first.
func (g *Gate) PendingSummaries(ctx context.Context) ([]Summary, error) {
	return g.store.PendingSummaries(ctx)
}

// Decided lists the most recently decided requests.
func (g *Gate) Decided(ctx context.Context, limit int) ([]Request, error) {
	return g.store.Decided(ctx, limit)
}

// CountPending counts pending requests.
func (g *Gate) CountPending(ctx context.Context) (int, error) { return g.store.CountPending(ctx) }

// Rules lists the rules, newest first; revoked ones too when asked.
func (g *Gate) Rules(ctx context.Context, withRevoked bool) ([]Rule, error) {
	return g.store.Rules(ctx, withRevoked)
}

// Audit lists the audit trail, newest first.
func (g *Gate) Audit(ctx context.Context, f AuditFilter) ([]AuditEvent, error) {
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 1000
	}
	return g.store.Audit(ctx, f)
}

// AddRule stores a new auto-approve rule made by by. It decides only requests submitted after
// it, never ones already waiting for a person.
func (g *Gate) AddRule(ctx context.Context, in Rule, by string) (Rule, error) {
	r := Rule{ID: newID("rule"), Agent: strings.TrimSpace(in.Agent), SessionID: strings.TrimSpace(in.SessionID),
		Kind: strings.TrimSpace(in.Kind), Machine: strings.TrimSpace(in.Machine), Cwd: strings.TrimSpace(in.Cwd),
		Note: strings.TrimSpace(in.Note), CreatedBy: by, Created: g.cfg.Now()}
	if r.Agent == "" && r.SessionID == "" && r.Kind == "" && r.Machine == "" && r.Cwd == "" {
		return Rule{}, invalid("a rule needs an agent, a session, a plan type, a machine or a directory to match: one that matches everything would switch the gate off")
	}
	if r.Kind != "" && r.Kind != TypeItems && r.Kind != TypeMarkdown && r.Kind != TypeDAG {
		return Rule{}, invalid("plan type %q is not one: use items, markdown or dag", r.Kind)
	}
	for _, f := range []struct{ what, v string }{{"the agent", r.Agent}, {"the session", r.SessionID}, {"the machine", r.Machine}, {"the directory", r.Cwd}, {"the note", r.Note}} {
		if err := checkText(f.what, f.v, MaxName); err != nil {
			return Rule{}, err
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	seq, err := g.nextSeq(ctx)
	if err != nil {
		return Rule{}, err
	}
	r.Seq = seq
	ev := AuditEvent{At: r.Created, Event: EventRuleAdded, RuleID: r.ID, SessionID: r.SessionID, Agent: r.Agent, By: by, Comment: r.Describe()}
	if err := g.store.PutRule(ctx, r, ev); err != nil {
		return Rule{}, err
	}
	g.changed(ctx, Change{Rule: &r})
	return r, nil
}

// RevokeRule stops a rule from deciding; it stays listed, revoked, for the audit trail.
func (g *Gate) RevokeRule(ctx context.Context, id, by string) (Rule, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.store.Rule(ctx, id)
	if err != nil {
		return Rule{}, err
	}
	if !r.Active() {
		return r, errs.Errorf(errs.Conflict, "the rule was already revoked by %s at %s", r.RevokedBy, r.Revoked.UTC().Format(time.RFC3339))
	}
	if r.Seq, err = g.nextSeq(ctx); err != nil {
		return Rule{}, err
	}
	r.Revoked, r.RevokedBy = g.cfg.Now(), by
	ev := AuditEvent{At: r.Revoked, Event: EventRuleRevoked, RuleID: r.ID, SessionID: r.SessionID, Agent: r.Agent, By: by, Comment: r.Describe()}
	if err := g.store.PutRule(ctx, r, ev); err != nil {
		return Rule{}, err
	}
	g.changed(ctx, Change{Rule: &r})
	return r, nil
}
