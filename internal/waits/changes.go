package waits

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// changeLog is how many of the latest changes the list keeps, so that a reader following it
// (the notifier) can ask which waits changed instead of reading the whole list after each one:
// in a burst of a thousand plans at the gate, each whole read built and sorted every wait.
const changeLog = 1024

// changes is the ring of the latest changes, in the order of their Seq.
type changes struct {
	ring [changeLog]Change
	n    uint64 // how many were ever logged
	// lost is the Seq of the newest change the ring no longer holds (the list's first Seq
	// before any was lost): a reader past it misses none.
	lost uint64
}

// add logs c, whose Seq is past every logged one's.
func (l *changes) add(c Change) {
	i := l.n % changeLog
	if l.n >= changeLog {
		l.lost = l.ring[i].Seq
	}
	l.ring[i] = c
	l.n++
}

// since is the ids of the waits changed after seq after, each once, in the order of their
// latest change (the oldest first, as the list orders waits that began); ok is false when a
// change after it named no wait or is no longer kept.
func (l *changes) since(after uint64) (ids []string, ok bool) {
	if after < l.lost {
		return nil, false
	}
	seen := map[string]bool{}
	for k := l.n; k > 0 && k+changeLog > l.n; k-- {
		c := l.ring[(k-1)%changeLog]
		if c.Seq <= after {
			break
		}
		if c.ID == "" {
			return nil, false
		}
		if !seen[c.ID] {
			seen[c.ID] = true
			ids = append(ids, c.ID)
		}
	}
	slices.Reverse(ids)
	return ids, true
}

// Changed waits until the list's sequence is past after, or limit has passed, or ctx ended,
// and returns the sequence then and the ids of the waits that changed after after (each read
// with One). ok is false when the list cannot tell which: a change that named no wait (a
// permission request's), one older than those it keeps, or no change before limit; the caller
// then reads the whole list (List), as it would have without this.
func (s *Service) Changed(ctx context.Context, after uint64, limit time.Duration) (seq uint64, ids []string, ok bool, err error) {
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		s.mu.Lock()
		seq, ch := s.seq, s.changed
		if seq > after {
			ids, ok = s.log.since(after)
			s.mu.Unlock()
			return seq, ids, ok, nil
		}
		s.mu.Unlock()
		select {
		case <-ch:
		case <-t.C:
			return seq, nil, false, nil
		case <-ctx.Done():
			return after, nil, false, ctx.Err()
		}
	}
}

// One is wait id as the list shows it now, read from its own source only; ok is false when
// the list has no such wait (it ended, or never was). Unlike the list, it does not stop at
// MaxList waits.
func (s *Service) One(ctx context.Context, id string) (Wait, bool, error) {
	switch {
	case strings.HasPrefix(id, prefixPlan):
		return s.onePlan(ctx, strings.TrimPrefix(id, prefixPlan))
	case strings.HasPrefix(id, prefixPermission):
		for _, p := range s.perms.List() {
			if p.Open() && PermissionID(p.Stream, p.ID) == id {
				return permissionWait(p, s.who(ctx)(p.SessionID)), true, nil
			}
		}
		return Wait{}, false, nil
	case s.asked != nil && (strings.HasPrefix(id, prefixQuestion) || strings.HasPrefix(id, prefixInput)):
		r, err := s.asked.Get(ctx, id)
		if errs.KindOf(err) == errs.NotFound || err == nil && !r.Open() {
			return Wait{}, false, nil
		}
		if err != nil {
			return Wait{}, false, err
		}
		return r.Wait(s.who(ctx)(r.SessionID)), true, nil
	}
	return Wait{}, false, nil
}

// onePlan is One for approval request id: pending before its deadline, or answered in the
// agent's own dialog (Elsewhere), as read lists them. A pending one comes from the requests
// kept from the gate's changes (see pending), without a read of the store.
func (s *Service) onePlan(ctx context.Context, id string) (Wait, bool, error) {
	if s.settledOne(id) {
		return Wait{}, false, nil
	}
	r, ok, trusted := s.keptOne(id)
	if !trusted {
		if _, err := s.pending(ctx); err != nil {
			return Wait{}, false, err
		}
		r, ok, _ = s.keptOne(id)
	}
	if !ok { // not pending; it may have been handed to the agent's own dialog
		var err error
		if r, err = s.gate.Get(ctx, id); errs.KindOf(err) == errs.NotFound {
			return Wait{}, false, nil
		} else if err != nil {
			return Wait{}, false, err
		}
	}
	switch {
	case r.Status == approval.Pending && s.cfg.Now().Before(r.Deadline), r.Status == approval.Elsewhere:
		return planWait(r, s.who(ctx)(r.SessionID)), true, nil
	}
	return Wait{}, false, nil
}

// settledOne reports whether request id was heard decided for good (see Service.settled).
func (s *Service) settledOne(id string) bool {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	_, ok := s.settled[id]
	return ok
}

// keptOne is pending request id as kept from the gate's changes; trusted is false when they
// are not (see kept), and then ok says nothing.
func (s *Service) keptOne(id string) (r approval.Request, ok, trusted bool) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if s.plans == nil || s.readAt.IsZero() || time.Since(s.readAt) >= resync {
		return r, false, false
	}
	r, ok = s.plans[id]
	return r, ok, true
}
