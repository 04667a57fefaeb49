package agentkit

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/plans"
)

// Applier is what an agent's service uses of plans.Service.
type Applier interface {
	Apply(ctx context.Context, st *plans.Stream, items []plans.Item) (plans.Result, error)
}

// Gate is what an agent's service uses of approval.Gate to hold a plan for a person and close
// the requests its agent left.
type Gate interface {
	Holder
	Closer
}

// MaxSeen bounds Seen.
const MaxSeen = 4096

// Seen is the set of sessions an adapter has already announced (its session/new applied), so
// that each is announced once. It is bounded: when full it is forgotten, which only costs one
// more announcement per session. The zero Seen is empty and ready; it is safe for concurrent
// use.
type Seen struct {
	mu sync.Mutex
	m  map[string]bool
}

// Has reports whether the session key was announced.
func (s *Seen) Has(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key]
}

// Add marks the session key announced.
func (s *Seen) Add(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) >= MaxSeen {
		s.m = make(map[string]bool)
	}
	s.m[key] = true
}

// Recorder applies the ACP messages an agent's adapter translated from one of its events.
type Recorder struct {
	Plans Applier
	Log   *slog.Logger
	// Name starts the error of a translated line that does not decode ("droid: translated
	// message 2 does not decode"); Hook starts logged lines ("droid hook").
	Name, Hook string
}

// Record applies msgs (one ACP message or batch each, as Translate returns them) as one stream
// for session key, logs each update the domain did not apply with event (the agent's event
// name), and marks key seen. An error means a line did not decode or the store failed.
func (r Recorder) Record(ctx context.Context, seen *Seen, key, event string, msgs []json.RawMessage) error {
	res, err := Apply(ctx, r.Plans, r.Name, msgs)
	if err != nil {
		return err
	}
	for _, e := range res.Errors {
		r.Log.Warn(r.Hook+": update not applied", "session", key, "event", hookkit.Truncate(event, 64), "line", e.Line, "err", e.Message)
	}
	seen.Add(key)
	return nil
}

// SessionReader reads a session without its plans; plans.Service is one.
type SessionReader interface {
	SessionOnly(ctx context.Context, id string) (plans.Session, error)
}

// Hooked reports whether the agent's hooks (or plugin) report the session key too: this
// process saw them (seen), or the store says so when p reads sessions. A follower of the
// agent's own files then leaves to the hooks what they show.
func Hooked(ctx context.Context, seen *Seen, p any, key string) bool {
	if seen.Has(key) {
		return true
	}
	if r, ok := p.(SessionReader); ok {
		if sess, err := r.SessionOnly(ctx, key); err == nil {
			return slices.Contains(sess.Via, plans.ViaHooks)
		}
	}
	return false
}

// AtLatest is ctx carrying the latest of the lines' times (plans.WithTime), for a follower of
// the agent's own files: a session file of last week read now is last week's session, not an
// active one. ctx itself when no line has a time.
func AtLatest[L any](ctx context.Context, lines []L, at func(L) time.Time) context.Context {
	var latest time.Time
	for _, l := range lines {
		if t := at(l); t.After(latest) {
			latest = t
		}
	}
	if latest.IsZero() {
		return ctx
	}
	return plans.WithTime(ctx, latest)
}
