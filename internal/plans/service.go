package plans

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// Config tunes the Service.
type Config struct {
	// Idle is how long a session stays active without activity.
	Idle time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Log receives internal errors; slog.Default when nil.
	Log *slog.Logger
	// Host is the machine plandash runs on: a session whose agent reports this host is local and
	// records none.
	Host string
	// Retention bounds the revision history Prune keeps; zero keeps all of it.
	Retention Retention
}

// Service applies decoded ACP traffic to the store and answers the queries pages and the API
// share. It serialises writers: one batch is read, changed and committed at a time, so the
// revision of a plan can never be assigned twice. Concurrent Apply calls share one commit.
type Service struct {
	store Store
	cfg   Config

	mu        sync.Mutex // held across read-modify-commit
	listeners []func(sessionIDs []string)
	committed []func(Committed)

	// Group commit (groupcommit.go): Apply calls wait in queue; whoever holds the lead token
	// commits them all at once.
	lead  chan struct{}
	qmu   sync.Mutex
	queue []*call
}

// Committed says what one commit changed, finer than sessions, so a listener can redo only that.
type Committed struct {
	Sessions []string // every session touched
	// Plans are the plans with a new revision (or removed), as committed: a listener can show
	// one without reading it back. They are shared by every listener and must not be modified.
	Plans     []*Plan
	ToolCalls []PlanKey // tool calls, as {SessionID, tool call id}
	Activity  []string  // sessions with new or merged activity
	// CallsAdded are the sessions that gained tool calls (their count changed).
	CallsAdded []string
}

// OnCommit registers fn to be called, after each commit, with what it changed. fn must not
// block: it runs on the writer's goroutine.
func (s *Service) OnCommit(fn func(Committed)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.committed = append(s.committed, fn)
}

// NewService makes a Service over store.
func NewService(store Store, cfg Config) *Service {
	if cfg.Idle <= 0 {
		cfg.Idle = 30 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Service{store: store, cfg: cfg, lead: make(chan struct{}, 1)}
}

// OnChange registers fn to be called, after each commit, with the sessions it changed. fn must
// not block: it runs on the writer's goroutine.
func (s *Service) OnChange(fn func(sessionIDs []string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, fn)
}

// Idle is the configured idle time after which a session stops being active.
func (s *Service) Idle() time.Duration { return s.cfg.Idle }

// Now is the service's clock.
func (s *Service) Now() time.Time { return s.cfg.Now() }

// commit writes c with write (the store's or a batch transaction's Commit) and tells the
// listeners; the caller holds s.mu.
func (s *Service) commit(ctx context.Context, c *Changes, write func(context.Context, *Changes) error) error {
	if c.Empty() {
		return nil
	}
	if err := write(ctx, c); err != nil {
		return err
	}
	ids := make([]string, 0, len(c.Sessions))
	for _, sess := range c.Sessions {
		ids = append(ids, sess.ID)
	}
	for _, fn := range s.listeners {
		fn(ids)
	}
	if len(s.committed) > 0 {
		done := Committed{Sessions: ids, Plans: c.Plans}
		for _, t := range c.ToolCalls {
			done.ToolCalls = append(done.ToolCalls, PlanKey{t.SessionID, t.ID})
		}
		added := map[string]bool{}
		for _, k := range c.NewToolCalls {
			if !added[k.SessionID] {
				added[k.SessionID] = true
				done.CallsAdded = append(done.CallsAdded, k.SessionID)
			}
		}
		seen := map[string]bool{}
		for _, a := range c.Activity {
			if !seen[a.SessionID] {
				seen[a.SessionID] = true
				done.Activity = append(done.Activity, a.SessionID)
			}
		}
		for _, fn := range s.committed {
			fn(done)
		}
	}
	return nil
}

// Overview is every active session with its active plans, and the Seq it reflects.
func (s *Service) Overview(ctx context.Context) ([]SessionPlans, uint64, error) {
	return s.store.Overview(ctx, s.cfg.Now(), s.cfg.Idle)
}

// WentIdle lists the sessions with plans that went idle between two sweeps, whose idleness
// cutoffs (now minus the idle time) were after and upTo; see Store.WentIdle.
func (s *Service) WentIdle(ctx context.Context, after, upTo time.Time) ([]string, error) {
	return s.store.WentIdle(ctx, after, upTo)
}

// Idleness is the cutoff at now: a session last seen at or before it is idle.
func (s *Service) Idleness() time.Time { return s.cfg.Now().Add(-s.cfg.Idle) }

// WatchIdle tells the commit listeners (OnCommit), every interval until ctx ends, of the sessions
// that went idle since the last time: idleness is not a stored change, but it changes what pages
// show of a session (it is gone).
func (s *Service) WatchIdle(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	from := s.Idleness()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		from = s.SweepIdle(ctx, from)
	}
}

// SweepIdle tells the commit listeners of the sessions that went idle since the idleness cutoff
// was from, and returns the cutoff the next sweep starts from. After a failure it is from again:
// the next sweep covers this one's window too.
func (s *Service) SweepIdle(ctx context.Context, from time.Time) time.Time {
	to := s.Idleness()
	ids, err := s.store.WentIdle(ctx, from, to)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			s.cfg.Log.Error("idle sweep", "err", err)
		}
		return from
	}
	if len(ids) > 0 {
		s.mu.Lock()
		for _, fn := range s.committed {
			fn(Committed{Sessions: ids})
		}
		s.mu.Unlock()
	}
	return to
}

// ListSessions is one page of sessions with plans, newest first by start (see Store.ListSessions);
// f's Now and Idle are the service's.
func (s *Service) ListSessions(ctx context.Context, f SessionFilter, after SessionCursor, limit int) ([]SessionPlans, bool, error) {
	f.Now, f.Idle = s.cfg.Now(), s.cfg.Idle
	return s.store.ListSessions(ctx, f, after, limit)
}

// Outline is session id as a live overview redoes its group (see Store.Outline).
func (s *Service) Outline(ctx context.Context, id string, n int, whole func(PlanRef) bool) (Outline, error) {
	return s.store.Outline(ctx, id, n, whole)
}

// RecentPlan is a plan if it is among its session's n newest (see Store.RecentPlan).
func (s *Service) RecentPlan(ctx context.Context, sessionID, planID string, n int) (Plan, bool, error) {
	return s.store.RecentPlan(ctx, sessionID, planID, n)
}

// SessionDetail is everything the session page shows: the session, its plans, its newest tool
// calls (ToolCallTotal says how many it has in all) and its recent activity.
type SessionDetail struct {
	Session       Session    `json:"session"`
	Plans         []Plan     `json:"plans"`
	ToolCalls     []ToolCall `json:"toolCalls"`
	ToolCallTotal int        `json:"toolCallTotal"`
	Activity      []Activity `json:"activity"`
	Seq           uint64     `json:"seq"`
}

// Page sizes of a session: what its page and API show at once, whatever its history.
const (
	RecentToolCalls = 200
	RecentActivity  = 100
)

// Session loads one session with its plans, newest tool calls and recent activity. Its cost does
// not grow with the session's past: a session with 20,000 tool calls loads as fast as a new one.
func (s *Service) Session(ctx context.Context, id string) (SessionDetail, error) {
	return s.SessionCalls(ctx, id, RecentToolCalls)
}

// SessionCalls is Session with the newest calls tool calls (at most 5,000).
func (s *Service) SessionCalls(ctx context.Context, id string, calls int) (SessionDetail, error) {
	seq := s.store.Seq()
	d, err := s.SessionPlans(ctx, id)
	if err != nil {
		return d, err
	}
	d.Seq = seq
	if d.ToolCalls, d.ToolCallTotal, err = s.store.RecentToolCalls(ctx, id, min(max(calls, 1), 5000)); err != nil {
		return d, err
	}
	d.Activity, err = s.store.Activity(ctx, id, RecentActivity)
	return d, err
}

// SessionPlans loads a session with its plans only: what the overview shows of it.
func (s *Service) SessionPlans(ctx context.Context, id string) (SessionDetail, error) {
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return SessionDetail{}, err
	}
	d := SessionDetail{Session: sess}
	d.Plans, err = s.store.SessionPlans(ctx, id)
	return d, err
}

// RecentActivity lists a session's newest activity.
func (s *Service) RecentActivity(ctx context.Context, id string) ([]Activity, error) {
	return s.store.Activity(ctx, id, RecentActivity)
}

// Plan is one plan of a session, as it is now.
func (s *Service) Plan(ctx context.Context, sessionID, planID string) (Plan, error) {
	return s.store.Plan(ctx, sessionID, planID)
}

// Sessions lists recent sessions.
func (s *Service) Sessions(ctx context.Context, limit int) ([]Session, error) {
	return s.store.Sessions(ctx, limit)
}

// History is every revision of one plan, oldest first.
func (s *Service) History(ctx context.Context, sessionID, planID string) ([]Revision, error) {
	revs, err := s.store.History(ctx, sessionID, planID)
	if err == nil && len(revs) == 0 {
		return nil, ErrNotFound
	}
	return revs, err
}

// ChangedSince lists sessions changed after seq, for a reconnecting page.
func (s *Service) ChangedSince(ctx context.Context, seq uint64) ([]string, uint64, error) {
	return s.store.ChangedSince(ctx, seq)
}

// EndSession marks a session ended: it leaves the overview but keeps its history.
func (s *Service) EndSession(ctx context.Context, id string) (Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return sess, err
	}
	if sess.Ended {
		return sess, nil
	}
	sess.Ended = true
	sess.LastSeen = s.cfg.Now()
	c := &Changes{Sessions: []*Session{&sess}}
	return sess, s.commit(ctx, c, s.store.Commit)
}

// isNotFound reports whether err says a thing does not exist.
func isNotFound(err error) bool {
	// nil first: KindOf allocates its target even for no error, and most lookups find.
	return err != nil && (errors.Is(err, ErrNotFound) || errs.KindOf(err) == errs.NotFound)
}

// SessionOnly loads a session without its plans.
func (s *Service) SessionOnly(ctx context.Context, id string) (Session, error) {
	return s.store.Session(ctx, id)
}

// Where is where session id runs, as plandash saw it: its machine (this one when the agent
// named none) and working directory; both "" for a session plandash has not seen.
func (s *Service) Where(ctx context.Context, id string) (machine, cwd string) {
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return "", ""
	}
	return s.Machine(sess), sess.Cwd
}

// Machine is the machine sess runs on: the one its agent named, else this one.
func (s *Service) Machine(sess Session) string { return cmp.Or(sess.Host, s.cfg.Host) }

// Seq is the store's newest change number.
func (s *Service) Seq() uint64 { return s.store.Seq() }

// ToolCalls lists a session's tool calls.
func (s *Service) ToolCalls(ctx context.Context, sessionID string) ([]ToolCall, error) {
	return s.store.ToolCalls(ctx, sessionID)
}

// ToolCallCount is how many tool calls a session has.
func (s *Service) ToolCallCount(ctx context.Context, sessionID string) (int, error) {
	_, n, err := s.store.RecentToolCalls(ctx, sessionID, 0)
	return n, err
}

// ToolCall is one tool call of a session.
func (s *Service) ToolCall(ctx context.Context, sessionID, id string) (ToolCall, error) {
	return s.store.ToolCall(ctx, sessionID, id)
}

// origin records where a session's agent runs, from the _meta.plandash an adapter puts on
// session/new ({"host": …, "agentSessionId": …}); a host that is this machine is not recorded.
func (s *Service) origin(sess *Session, meta json.RawMessage) {
	if len(meta) == 0 {
		return
	}
	var m struct {
		Plandash struct {
			Host           string `json:"host"`
			AgentSessionID string `json:"agentSessionId"`
			Via            string `json:"via"`
		} `json:"plandash"`
	}
	if json.Unmarshal(meta, &m) != nil {
		return
	}
	const max = 255 // names, not documents
	if h := m.Plandash.Host; h != "" && h != s.cfg.Host && len(h) <= max {
		sess.Host = h
	}
	if id := m.Plandash.AgentSessionID; id != "" && len(id) <= max {
		sess.AgentSessionID = id
	}
	if v := m.Plandash.Via; v != "" && len(v) <= 32 && !slices.Contains(sess.Via, v) && len(sess.Via) < maxVia {
		sess.Via = append(slices.Clip(sess.Via), v)
	}
}
