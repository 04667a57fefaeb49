package approval

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

// Config tunes the Gate.
type Config struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// DefaultTimeout is the deadline of a request that names none; one hour when zero.
	DefaultTimeout time.Duration
	// MaxTimeout bounds how far away a deadline may be; seven days when zero.
	MaxTimeout time.Duration
	// ValidateDAG checks a tool-call plan ({"calls": […]}) beyond its JSON shape; nil checks
	// the shape only.
	ValidateDAG func(json.RawMessage) error
	// Log receives errors of the deadline loop; slog.Default when nil.
	Log *slog.Logger
	// Place says where a session runs (its machine and directory), for rules limited to those;
	// nil, or an empty Place, and such rules match nothing.
	Place func(ctx context.Context, sessionID string) Place
}

// Change is what one write changed, for listeners that show it.
type Change struct {
	Request *Request // the created or decided request, or nil
	Rule    *Rule    // the added or revoked rule, or nil
	Seq     uint64
	// Remote says another instance made the change (see Gate.Notify): listeners that show
	// changes show it; listeners that act on them leave it to the instance that made it.
	Remote bool
}

// Gate holds plans until a person decides. It is safe for concurrent use.
type Gate struct {
	store Store
	cfg   Config

	// mu is held across every read-check-write, so a request is decided once and listeners
	// see changes in the order they were made.
	mu        sync.Mutex
	seq       uint64
	listeners []func(Change)

	wmu     sync.Mutex
	waiters map[string]*waiter
	kick    chan struct{}
	// wakeAt is when Run looks at the deadlines next, in Unix nanoseconds of cfg.Now; zero
	// while it looks, or before it runs. A request due later needs no kick: each kick costs
	// Run two reads of the store, and a burst of submissions kicked it once each.
	wakeAt atomic.Int64
}

// waiter is shared by everyone waiting on one request: closing ch wakes them all, and r is
// the decided request, so nobody has to read it back from the store.
type waiter struct {
	ch chan struct{}
	r  Request
	n  int
	// pending is the request as a waiter read it, still pending, or nil: a decision here starts
	// from it rather than reading it again (see current).
	pending *Request
}

// New makes a gate over store.
func New(ctx context.Context, store Store, cfg Config) (*Gate, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.DefaultTimeout <= 0 {
		cfg.DefaultTimeout = time.Hour
	}
	if cfg.MaxTimeout <= 0 {
		cfg.MaxTimeout = 7 * 24 * time.Hour
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	seq, err := store.Seq(ctx)
	if err != nil {
		return nil, err
	}
	return &Gate{store: store, cfg: cfg, seq: seq, waiters: map[string]*waiter{}, kick: make(chan struct{}, 1)}, nil
}

// OnChange registers fn to be called after every committed change, in order. fn runs while
// the gate's writer lock is held: it must be quick and must not call back into the gate's
// writing methods.
func (g *Gate) OnChange(fn func(Change)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.listeners = append(g.listeners, fn)
}

// Now is the gate's clock.
func (g *Gate) Now() time.Time { return g.cfg.Now() }

// Seq is the number of the latest change.
func (g *Gate) Seq() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.seq
}

// DecidedError says a decision came too late: the request was already decided, by someone
// else or by its deadline. It is a conflict and carries the request as it stands.
type DecidedError struct{ Request Request }

func (e *DecidedError) Error() string {
	d := e.Request.Decision
	if h := e.Request.Handover; d == nil && h != nil {
		return fmt.Sprintf("%s (since %s): plandash's answer no longer reaches the agent", h.Note, h.At.UTC().Format(time.RFC3339))
	}
	if d == nil {
		return "the request is already decided"
	}
	if d.Expired {
		return fmt.Sprintf("the deadline passed at %s with no decision, so the default outcome applied: %s",
			d.At.UTC().Format(time.RFC3339), e.Request.Status.Words())
	}
	return fmt.Sprintf("already %s by %s at %s", e.Request.Status.Words(), d.By, d.At.UTC().Format(time.RFC3339))
}

// Unwrap makes the error a domain conflict, so it maps to 409 with everything else.
func (e *DecidedError) Unwrap() error { return &errs.Error{Kind: errs.Conflict, Msg: e.Error()} }

// Submit validates and stores a new request, deciding it at once when an active rule approves
// it. A submission with the ID of an existing request returns that request and false, or a
// conflict when the submissions differ.
func (g *Gate) Submit(ctx context.Context, sub Submission) (Request, bool, error) {
	r, err := g.newRequest(sub)
	if err != nil {
		return Request{}, false, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	who, byToken := SubmitterOf(ctx)
	if sub.ID != "" {
		old, err := g.store.Get(ctx, r.ID)
		switch {
		case err == nil && (old.Fingerprint != r.Fingerprint || byToken && !who.Owns(old)):
			// Another token's request is not handed over, not even for the same submission:
			// the answer would show its decision.
			return Request{}, false, errs.Errorf(errs.Conflict, "the id %q belongs to a different request", r.ID)
		case err == nil:
			return old, false, nil
		case errs.KindOf(err) != errs.NotFound:
			return Request{}, false, err
		}
	}
	rules, err := g.store.Rules(ctx, false)
	if err != nil {
		return Request{}, false, err
	}
	if r.Revises, err = g.revises(ctx, r, sub.Revises); err != nil {
		return Request{}, false, err
	}
	// The credential that asked, when it was a per-agent token; the agent's name is beside it.
	r.SubmittedBy = plans.SourceOf(ctx)
	r.SubmitterID = who.ID
	events := []AuditEvent{g.audit(EventRequested, r, cmp.Or(r.SubmittedBy, r.Agent))}
	var at Place
	if g.cfg.Place != nil && r.SessionID != "" && slices.ContainsFunc(rules, Rule.Placed) {
		at = g.cfg.Place(ctx, r.SessionID)
	}
	for _, rule := range rules {
		if rule.Matches(r, at) && r.Allows(Approve) {
			p := r.Plan
			r.Status = Approved
			r.Decision = &Decision{Action: Approve, By: "rule " + rule.ID, At: r.Created, Plan: &p, Rule: rule.ID,
				Comment: "approved by the rule for " + rule.Describe()}
			ev := g.audit(EventAutoApproved, r, r.Decision.By)
			ev.RuleID, ev.Comment = rule.ID, r.Decision.Comment
			events = append(events, ev)
			break
		}
	}
	if r.Seq, err = g.nextSeq(ctx); err != nil {
		return Request{}, false, err
	}
	stored, created, err := g.store.Create(ctx, r, events)
	if err != nil || !created {
		return stored, false, err
	}
	g.changed(ctx, Change{Request: &stored})
	if !stored.Decided() {
		g.deadlineAt(stored.Deadline)
	}
	return stored, true, nil
}

// revises finds the request r answers: the one the agent named, which must exist, or the
// session's previous request when it ended with changes requested; g.mu is held.
func (g *Gate) revises(ctx context.Context, r Request, named string) (string, error) {
	who, byToken := SubmitterOf(ctx)
	if named = strings.TrimSpace(named); named != "" {
		prev, err := g.store.Get(ctx, named)
		switch {
		case errs.KindOf(err) == errs.NotFound || err == nil && byToken && !who.Owns(prev):
			// A token revises its own requests only; another's is as good as absent to it.
			return "", errs.Errorf(errs.Invalid, "revises names request %q, which does not exist (or was not submitted with this token)", named)
		case err != nil:
			return "", err
		}
		return named, nil
	}
	if r.SessionID == "" {
		return "", nil
	}
	prev, ok, err := g.store.LatestInSession(ctx, r.SessionID, r.Created)
	if err != nil || !ok || prev.Status != ChangesRequested || byToken && !who.Owns(prev) {
		return "", err
	}
	return prev.ID, nil
}

// Decide records a person's decision. Exactly one decision wins: every later one gets a
// *DecidedError (a conflict) carrying the winner, unless it repeats the winner's Key.
func (g *Gate) Decide(ctx context.Context, id string, in DecisionInput) (Request, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.current(ctx, id)
	if err != nil {
		return Request{}, err
	}
	if r.Decided() {
		if repeats(r, in.Key, in.By) {
			return r, nil
		}
		return r, &DecidedError{r}
	}
	now := g.cfg.Now()
	if !now.Before(r.Deadline) {
		if r, err = g.expireLocked(ctx, r); err != nil {
			return r, err
		}
		return r, &DecidedError{r}
	}
	if err := g.checkDecision(r, &in); err != nil {
		return r, err
	}
	action, plan := in.Action, in.Plan
	switch {
	case action == Approve:
		p := r.Plan
		plan = &p
	case action == Modify && plan.Equal(r.Plan):
		action = Approve // nothing changed: the agent runs its own plan
	case action == Reject || action == RequestChanges:
		plan = nil
	}
	d := &Decision{Action: action, By: in.By, At: now, Comment: strings.TrimSpace(in.Comment), Plan: plan, Key: in.Key}
	if action == RequestChanges {
		// The text is stored with the list, so every channel tells the agent the same words.
		d.Feedback = in.Feedback
		d.FeedbackText = FeedbackText(d.Comment, d.Feedback)
	}
	return g.decideLocked(ctx, r, d)
}

// current is request id as a decision starts from it: as its waiter read it, when an agent
// waits on it, else from the store; g.mu is held. The waiter's copy is the request as it was
// submitted, which nothing changes but a decision or a handover, and each of those, made here,
// ends the waiter. One made by another instance is not seen in it, but the store's conditional
// Decide refuses to decide the request twice, and decideLocked then reads who won.
func (g *Gate) current(ctx context.Context, id string) (Request, error) {
	g.wmu.Lock()
	var kept *Request
	if w := g.waiters[id]; w != nil {
		kept = w.pending
	}
	g.wmu.Unlock()
	if kept != nil {
		return *kept, nil
	}
	return g.store.Get(ctx, id)
}

// decideLocked stores r with decision d; g.mu is held.
func (g *Gate) decideLocked(ctx context.Context, r Request, d *Decision) (Request, error) {
	before := r.Plan
	r.Status, r.Decision = d.Action.Status(), d
	seq, err := g.nextSeq(ctx)
	if err != nil {
		return r, err
	}
	r.Seq = seq
	ev := g.audit(string(r.Status), r, d.By)
	ev.Comment = d.Comment
	if d.FeedbackText != "" {
		ev.Comment = d.FeedbackText // the trail keeps the whole review, in words
	}
	if d.Expired {
		ev.Event = EventExpired
	}
	if r.Status == Modified {
		ev.Before, ev.After = &before, d.Plan
	}
	ok, err := g.store.Decide(ctx, r, []AuditEvent{ev})
	if err != nil {
		return r, err
	}
	if !ok {
		// Another gate on the store (another instance) decided first. A retry of that very
		// decision, sent to both instances at once, gets the winner's answer, as it would on
		// one instance.
		cur, err := g.store.Get(ctx, r.ID)
		if err != nil {
			return cur, err
		}
		if repeats(cur, d.Key, d.By) {
			return cur, nil
		}
		return cur, &DecidedError{cur}
	}
	g.changed(ctx, Change{Request: &r})
	return r, nil
}

// repeats reports whether a decision with key, by by, is the one r was decided with: a retry
// that gets the winner's answer rather than a conflict.
func repeats(r Request, key, by string) bool {
	d := r.Decision
	return key != "" && d != nil && d.Key == key && d.By == by
}

// expireLocked applies the default outcome to r if its deadline has passed; g.mu is held.
func (g *Gate) expireLocked(ctx context.Context, r Request) (Request, error) {
	r, err := g.store.Get(ctx, r.ID)
	now := g.cfg.Now()
	if err != nil || r.Decided() || now.Before(r.Deadline) {
		return r, err
	}
	if r.Then != "" {
		return g.handOverAtDeadline(ctx, r)
	}
	d := &Decision{Action: r.Default, By: "deadline", At: now, Expired: true,
		Comment: fmt.Sprintf("nobody decided before the deadline (%s), so the default outcome applies: %s", r.Deadline.UTC().Format(time.RFC3339), r.Default.Status().Words())}
	if d.Action == Approve {
		p := r.Plan
		d.Plan = &p
	}
	return g.decideLocked(ctx, r, d)
}

// nextSeq is the number of the next change: from the store when it is shared with other
// instances, else one more than the last; g.mu is held.
func (g *Gate) nextSeq(ctx context.Context) (uint64, error) {
	sq, ok := g.store.(Sequencer)
	if !ok {
		g.seq++
		return g.seq, nil
	}
	n, err := sq.NextSeq(ctx)
	if err != nil {
		return 0, err
	}
	g.seq = max(g.seq, n)
	return n, nil
}

// changed wakes the request's waiters, then tells listeners; g.mu is held.
func (g *Gate) changed(ctx context.Context, c Change) {
	if c.Request != nil && c.Request.Decided() {
		g.wmu.Lock()
		w := g.waiters[c.Request.ID]
		if w != nil {
			delete(g.waiters, c.Request.ID)
			w.r = *c.Request
			close(w.ch)
		}
		g.wmu.Unlock()
		if w != nil {
			// A woken waiter waits for this goroutine's core: Go puts it next in line here,
			// behind the listeners and the decider's own answer, and the other core takes it
			// only once a thread there wakes (~0.1 ms at the median of 500 decisions). The
			// agent waits on the waiter, and nothing left to do here is for it: let it run now.
			runtime.Gosched()
		}
	}
	// No count of the pending requests rides along: it was a query per change under g.mu
	// (in a burst of a thousand plans, a third of a second the gate's writers queued for),
	// and no listener read it; those that show a count read it when they render.
	c.Seq = max(g.seq, seqOf(c))
	for _, fn := range g.listeners {
		fn(c)
	}
}

func seqOf(c Change) uint64 {
	switch {
	case c.Request != nil:
		return c.Request.Seq
	case c.Rule != nil:
		return c.Rule.Seq
	}
	return 0
}

func (g *Gate) audit(event string, r Request, by string) AuditEvent {
	return AuditEvent{At: g.cfg.Now(), Event: event, RequestID: r.ID, SessionID: r.SessionID, Agent: r.Agent, Title: r.Title, By: by}
}
