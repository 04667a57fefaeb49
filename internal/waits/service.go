package waits

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/plans"
)

// Gate is what the list uses of approval.Gate: its pending requests and those the agents' own
// dialogs answered (outcome not known yet), deciding one, and hearing
// of its changes (local ones, and other instances' through its Notify).
type Gate interface {
	PendingSummaries(ctx context.Context) ([]approval.Summary, error)
	Elsewhere(ctx context.Context) ([]approval.Request, error)
	Get(ctx context.Context, id string) (approval.Request, error)
	Decide(ctx context.Context, id string, in approval.DecisionInput) (approval.Request, error)
	OnChange(fn func(approval.Change))
}

// Permissions is what the list uses of permissions.Inbox.
type Permissions interface {
	List() []permissions.Request
	Answer(stream string, id json.RawMessage, o acp.PermissionOutcome, by string) error
	OnChange(fn func(latest string))
}

// Sessions names who waits: the session's agent, machine and working directory.
type Sessions interface {
	SessionOnly(ctx context.Context, id string) (plans.Session, error)
}

// Change is what a listener hears when the list changed: the wait that began or changed, when
// one is known (ID), and its title when it just began (Began), for a page's notification.
type Change struct {
	Seq   uint64
	ID    string
	Began string
}

// Config tunes the Service.
type Config struct {
	Now  func() time.Time // the clock; time.Now when nil
	Log  *slog.Logger     // slog.Default when nil
	Host string           // this machine's name, for waits of local sessions; os.Hostname when ""
}

// Service is the one list. It is safe for concurrent use.
type Service struct {
	gate     Gate
	perms    Permissions
	sessions Sessions
	asked    *Asked // questions and input waits; nil lists none
	cfg      Config

	mu        sync.Mutex
	seq       uint64
	changed   chan struct{} // closed and replaced on every change
	listeners []func(Change)
	log       changes // the latest changes, for Changed
	// cached is the list read at seq cachedAt: every surface reads the list after each change
	// (the count, the strip, the inbox, long polls), and one read serves them all until the
	// next change. Callers must not modify its waits.
	cached   *List
	cachedAt uint64

	// plans is the gate's pending requests, by ID, each good for its Seq (a request is written
	// with a new Seq each time): read whole from the store at most every resync, and kept
	// current in between by the requests the gate's changes carry (heard). A read of the list
	// then reads no request from the store: in a burst of a thousand plans at the gate, reading
	// every pending request's summary on every change was most of what the list cost its
	// readers (the notifier reads it after each change, pages after theirs).
	pmu    sync.Mutex
	plans  map[string]approval.Request
	readAt time.Time          // when plans was last read whole; zero: never, or no longer trusted
	during []approval.Request // the changes heard while plans is read whole (nil when it is not)
	full   sync.Mutex         // held by the one whole read at a time
	// settled is the requests heard decided for good (neither pending nor handed to the
	// agent's own dialog), which no later change reopens: One says their wait is over without
	// reading them back. The notifier asks it right after each decision, and that read took
	// a core from the waiter's client. Emptied when it reaches maxSettled.
	settled map[string]struct{}
}

// maxSettled bounds Service.settled: one is forgotten only for One to read it again.
const maxSettled = 1024

// resync is how long the pending requests kept from the gate's changes are trusted before
// they are read whole again: a change this instance did not hear (another instance's, its
// note lost) shows within it.
const resync = time.Second

// New builds the list over its sources and starts hearing their changes. asked may be nil.
func New(gate Gate, perms Permissions, sessions Sessions, asked *Asked, cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Host == "" {
		cfg.Host, _ = os.Hostname()
	}
	s := &Service{gate: gate, perms: perms, sessions: sessions, asked: asked, cfg: cfg, changed: make(chan struct{})}
	s.seq = s.next(0)
	s.log.lost = s.seq
	gate.OnChange(func(c approval.Change) {
		if c.Request != nil {
			s.heard(*c.Request)
			began := ""
			if !c.Request.Decided() {
				began = c.Request.Title
			}
			s.bump(Change{ID: PlanID(c.Request.ID), Began: began})
		}
	})
	perms.OnChange(func(latest string) { s.bump(Change{Began: latest}) })
	if asked != nil {
		asked.onChange = func(id, began string) { s.bump(Change{ID: id, Began: began}) }
	}
	return s
}

// OnChange registers fn to be called after every change of the list, in order. fn may run while
// a source holds its lock: it must be quick and must not call back into the sources.
func (s *Service) OnChange(fn func(Change)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, fn)
}

// next is the sequence number after last. It follows the clock (in microseconds) when that is
// ahead, so instances sharing a database, which each number the changes they hear, agree
// closely enough that a client moving between them never waits on a number already passed; a
// restarted instance also starts past every number it gave before.
func (s *Service) next(last uint64) uint64 {
	return max(last+1, uint64(max(s.cfg.Now().UnixMicro(), 0)))
}

// bump moves the sequence, wakes the long polls and tells the listeners.
func (s *Service) bump(c Change) {
	s.mu.Lock()
	s.seq = s.next(s.seq)
	c.Seq = s.seq
	s.log.add(c)
	close(s.changed)
	s.changed = make(chan struct{})
	ls := s.listeners
	s.mu.Unlock()
	for _, fn := range ls {
		fn(c)
	}
}

// Seq is the list's current sequence number.
func (s *Service) Seq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// List is every current wait, oldest first (at most MaxList). Its Seq is read before the sources, so a change
// made while they are read moves the sequence past it and a long poll sees it.
func (s *Service) List(ctx context.Context) (List, error) {
	l, err := s.All(ctx)
	l.Waits = l.Waits[:min(len(l.Waits), MaxList)]
	return l, err
}

// All is List without its bound: every current wait, however many. The notifications read it,
// so that a wait read alone (One, which has no bound either) is never missing from it.
func (s *Service) All(ctx context.Context) (List, error) {
	s.mu.Lock()
	seq, cached := s.seq, s.cached
	if cached != nil && s.cachedAt == seq {
		s.mu.Unlock()
		return *cached, nil
	}
	s.mu.Unlock()
	l, err := s.read(ctx, seq)
	if err != nil {
		return List{}, err
	}
	s.mu.Lock()
	if s.seq == seq { // nothing changed while the sources were read
		s.cached, s.cachedAt = &l, seq
	}
	s.mu.Unlock()
	return l, nil
}

// read reads the list from its sources, as of seq.
func (s *Service) read(ctx context.Context, seq uint64) (List, error) {
	var out []Wait
	pending, err := s.pending(ctx)
	if err != nil {
		return List{}, err
	}
	now := s.cfg.Now()
	who := s.who(ctx)
	for _, r := range pending {
		if now.Before(r.Deadline) {
			out = append(out, planWait(r, who(r.SessionID)))
		}
	}
	handed, err := s.gate.Elsewhere(ctx)
	if err != nil {
		return List{}, err
	}
	for _, r := range handed {
		out = append(out, planWait(r, who(r.SessionID)))
	}
	for _, p := range s.perms.List() {
		if p.Open() {
			out = append(out, permissionWait(p, who(p.SessionID)))
		}
	}
	if s.asked != nil {
		open, err := s.asked.Open(ctx)
		if err != nil {
			return List{}, err
		}
		for _, a := range open {
			out = append(out, a.Wait(who(a.SessionID)))
		}
	}
	slices.SortStableFunc(out, func(a, b Wait) int { return cmp.Or(a.Since.Compare(b.Since), cmp.Compare(a.ID, b.ID)) })
	if out == nil {
		out = []Wait{}
	}
	return List{Seq: seq, Waits: out}, nil
}

// heard keeps a request the gate just stored, as the change carries it: the pending requests
// kept between whole reads follow it, and a whole read under way replays it on what it read
// (see pending). The gate calls its listeners in the order of its commits, so the last request
// heard of an ID is its newest.
func (s *Service) heard(r approval.Request) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if s.during != nil {
		s.during = append(s.during, r)
	}
	if r.Status != approval.Pending && r.Status != approval.Elsewhere {
		if s.settled == nil || len(s.settled) >= maxSettled {
			s.settled = map[string]struct{}{}
		}
		s.settled[r.ID] = struct{}{}
	}
	if s.plans == nil {
		return
	}
	if r.Status == approval.Pending {
		s.plans[r.ID] = r
	} else {
		delete(s.plans, r.ID)
	}
}

// pending is the gate's pending requests, oldest first: those kept from the gate's changes
// while they are trusted (see resync), else read whole.
func (s *Service) pending(ctx context.Context) ([]approval.Request, error) {
	if out, ok := s.kept(); ok {
		return out, nil
	}
	s.full.Lock()
	defer s.full.Unlock()
	if out, ok := s.kept(); ok { // read whole by another reader meanwhile
		return out, nil
	}
	s.pmu.Lock()
	prev := maps.Clone(s.plans) // heard changes s.plans meanwhile
	s.during = []approval.Request{}
	s.pmu.Unlock()
	next, err := s.readPending(ctx, prev)
	s.pmu.Lock()
	defer s.pmu.Unlock()
	during := s.during
	s.during = nil
	if err != nil {
		s.plans, s.readAt = nil, time.Time{}
		return nil, err
	}
	// What the gate committed while the store was read may be in what was read or not: a
	// change newer than the request read replaces it, and one that ended a request removes it.
	for _, r := range during {
		if cur, ok := next[r.ID]; ok && cur.Seq >= r.Seq {
			continue
		}
		if r.Status == approval.Pending {
			next[r.ID] = r
		} else {
			delete(next, r.ID)
		}
	}
	s.plans, s.readAt = next, time.Now()
	return sortedPending(next), nil
}

// kept is the pending requests kept from the gate's changes, when they are trusted.
func (s *Service) kept() ([]approval.Request, bool) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if s.plans == nil || s.readAt.IsZero() || time.Since(s.readAt) >= resync {
		return nil, false
	}
	return sortedPending(s.plans), true
}

// sortedPending is the requests of m oldest first, as the store lists them.
func sortedPending(m map[string]approval.Request) []approval.Request {
	out := make([]approval.Request, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b approval.Request) int { return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID)) })
	return out
}

// readPending reads the gate's pending requests from the store: every pending request's
// summary, and whole only those not in prev at their Seq. One decided (or changed) between the
// two reads is left out; the change that did it is heard and replayed (see pending).
func (s *Service) readPending(ctx context.Context, prev map[string]approval.Request) (map[string]approval.Request, error) {
	sums, err := s.gate.PendingSummaries(ctx)
	if err != nil {
		return nil, err
	}
	next := make(map[string]approval.Request, len(sums))
	for _, m := range sums {
		r, ok := prev[m.ID]
		if !ok || r.Seq != m.Seq {
			if r, err = s.gate.Get(ctx, m.ID); errs.KindOf(err) == errs.NotFound {
				continue
			} else if err != nil {
				return nil, err
			}
			if r.Seq != m.Seq || r.Status != approval.Pending {
				continue
			}
		}
		next[m.ID] = r
	}
	return next, nil
}

// Get is the current wait id; ok is false when there is none (it ended, or never was).
func (s *Service) Get(ctx context.Context, id string) (Wait, bool, error) {
	l, err := s.List(ctx)
	if err != nil {
		return Wait{}, false, err
	}
	for _, w := range l.Waits {
		if w.ID == id {
			return w, true, nil
		}
	}
	return Wait{}, false, nil
}

// Await returns the list as soon as its sequence is past after, or as it stands once limit
// has passed or ctx ended.
func (s *Service) Await(ctx context.Context, after uint64, limit time.Duration) (List, error) {
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		s.mu.Lock()
		seq, ch := s.seq, s.changed
		s.mu.Unlock()
		if seq > after {
			return s.List(ctx)
		}
		select {
		case <-ch:
		case <-t.C:
			return s.List(ctx)
		case <-ctx.Done():
			return List{}, ctx.Err()
		}
	}
}

// Who is who waits: the session's agent, machine and directory.
type Who struct {
	SessionID, Agent, AgentName, Machine, Cwd string
}

// who returns a lookup of sessions that reads each session once per list.
func (s *Service) who(ctx context.Context) func(id string) Who {
	seen := map[string]Who{}
	return func(id string) Who {
		if w, ok := seen[id]; ok || id == "" {
			return w
		}
		w := Who{SessionID: id, Machine: s.cfg.Host}
		if sess, err := s.sessions.SessionOnly(ctx, id); err == nil {
			w.Agent, w.AgentName, w.Cwd = sess.Agent, sess.Name(), sess.Cwd
			if sess.Host != "" {
				w.Machine = sess.Host
			}
		}
		seen[id] = w
		return w
	}
}

// Kept returns a wait plandash keeps (a question, a session waiting for input), open or ended,
// for its page.
func (s *Service) Kept(ctx context.Context, id string) (Record, error) {
	if s.asked == nil {
		return Record{}, errs.Errorf(errs.NotFound, "no wait %q", id)
	}
	return s.asked.Get(ctx, id)
}
