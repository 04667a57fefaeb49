package plans

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
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

	// Group commit (groupcommit.go): Apply calls wait in queue; whoever holds the lead token
	// commits them all at once.
	lead  chan struct{}
	qmu   sync.Mutex
	queue []*call
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

// commit writes c and tells the listeners; the caller holds s.mu.
func (s *Service) commit(ctx context.Context, c *Changes) error {
	if c.Empty() {
		return nil
	}
	if err := s.store.Commit(ctx, c); err != nil {
		return err
	}
	ids := make([]string, 0, len(c.Sessions))
	for _, sess := range c.Sessions {
		ids = append(ids, sess.ID)
	}
	for _, fn := range s.listeners {
		fn(ids)
	}
	return nil
}

// Overview is every active session with its active plans, and the Seq it reflects.
func (s *Service) Overview(ctx context.Context) ([]SessionPlans, uint64, error) {
	return s.store.Overview(ctx, s.cfg.Now(), s.cfg.Idle)
}

// SessionDetail is everything the session page shows.
type SessionDetail struct {
	Session   Session
	Plans     []Plan
	ToolCalls []ToolCall
	Activity  []Activity
	Seq       uint64
}

// Session loads one session with its plans, tool calls and recent activity.
func (s *Service) Session(ctx context.Context, id string) (SessionDetail, error) {
	seq := s.store.Seq()
	sess, err := s.store.Session(ctx, id)
	if err != nil {
		return SessionDetail{}, err
	}
	d := SessionDetail{Session: sess, Seq: seq}
	if d.Plans, err = s.store.SessionPlans(ctx, id); err != nil {
		return d, err
	}
	if d.ToolCalls, err = s.store.ToolCalls(ctx, id); err != nil {
		return d, err
	}
	d.Activity, err = s.store.Activity(ctx, id, 100)
	return d, err
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
	return sess, s.commit(ctx, c)
}

// isNotFound reports whether err says a thing does not exist.
func isNotFound(err error) bool {
	return errors.Is(err, ErrNotFound) || errs.KindOf(err) == errs.NotFound
}

// SessionOnly loads a session without its plans.
func (s *Service) SessionOnly(ctx context.Context, id string) (Session, error) {
	return s.store.Session(ctx, id)
}

// Seq is the store's newest change number.
func (s *Service) Seq() uint64 { return s.store.Seq() }

// ToolCalls lists a session's tool calls.
func (s *Service) ToolCalls(ctx context.Context, sessionID string) ([]ToolCall, error) {
	return s.store.ToolCalls(ctx, sessionID)
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
}
