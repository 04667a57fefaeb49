package sharedplans

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// Service is plandash's side of the shared plans: it watches the plans directory and records
// every state any process writes in the history, tells its listener which plan changed, writes on
// behalf of plandash's own surfaces with the write attributed to them, and links plans to the
// gate (service_gate.go).
type Service struct {
	store *Store
	hist  HistoryStore
	log   *slog.Logger
	now   func() time.Time
	wait  time.Duration

	// mu serializes observations and plandash's own writes (write, read the file, record, tell),
	// so the history follows the order of states on disk, and a write by plandash is recorded as
	// its own before the watcher can see it as a stranger's.
	mu       sync.Mutex
	bad      map[string]string // plans whose file is unreadable now, with why; under mu
	onChange []func(name string)
	idx      index // what lists show, kept by observations while the watcher runs (index.go)

	work sync.WaitGroup // decisions being written back
}

// ServiceConfig tunes a Service.
type ServiceConfig struct {
	Log *slog.Logger
	Now func() time.Time
	// LockWait bounds how long a write waits for the plans lock, as docker-agent's own TUI does,
	// so a stuck process holding .plans.lock never hangs a request. Default 5s.
	LockWait time.Duration
}

// NewService returns the service over store, recording in hist.
func NewService(store *Store, hist HistoryStore, cfg ServiceConfig) *Service {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.LockWait <= 0 {
		cfg.LockWait = 5 * time.Second
	}
	return &Service{store: store, hist: hist, log: cfg.Log, now: cfg.Now, wait: cfg.LockWait, bad: map[string]string{}}
}

// OnChange registers fn to be told, after the history recorded it, which plan changed (or became
// unreadable, or readable again). fn must not block. Register before Run.
func (s *Service) OnChange(fn func(name string)) { s.onChange = append(s.onChange, fn) }

// Store is the plans directory.
func (s *Service) Store() *Store { return s.store }

// History is the record of every state seen.
func (s *Service) History() HistoryStore { return s.hist }

// Bad says why a plan's file cannot be read now, if it cannot.
func (s *Service) Bad(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	why, bad := s.bad[name]
	return why, bad
}

// Run watches the plans directory until ctx ends: every change, by any process, is recorded and
// told. Plans changed while plandash was not running are caught up once the watch is live. It
// returns once nothing it started is running, decisions being written back included.
func (s *Service) Run(ctx context.Context) {
	defer s.work.Wait()
	dir := s.store.Dir()
	// Like docker-agent, plandash does not create the directory just by looking at it: wait for
	// it to appear (a write from the browser or the API creates it and is observed directly).
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
	// A writer that crashed mid-write leaves its temp file behind; nothing else ever removes it.
	if removed, err := s.store.CleanTemp(ctx); err != nil {
		s.log.Warn("shared plans: cleaning temp files left by a crash", "dir", dir, "err", err)
	} else if len(removed) > 0 {
		s.log.Info("shared plans: removed temp files left by a crash", "dir", dir, "files", removed)
	}
	w, err := s.store.Watch(ctx, func(ev Event) { s.Observe(ctx, ev.Name, "disk") })
	if err != nil {
		s.log.Error("shared plans: cannot watch the plans directory; the dashboard will not see changes", "dir", dir, "err", err)
		return
	}
	defer s.idx.stop()
	if err := s.sync(ctx); err != nil && ctx.Err() == nil {
		s.log.Error("shared plans: catching up with the plans directory", "dir", dir, "err", err)
	}
	w.Wait()
}

// sync records every plan whose state on disk differs from the history's newest entry, and the
// removal of every plan the history still believes exists.
func (s *Service) sync(ctx context.Context) error {
	known, err := s.hist.Current(ctx)
	if err != nil {
		return err
	}
	// The scan and the index's start are one step under mu: an observation (the watcher is
	// already live) then lands after the scan it is newer than, never under it.
	s.mu.Lock()
	list, names, err := s.store.scan(ctx)
	if err == nil {
		s.idx.reset(list, names)
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	for _, p := range list.Plans {
		e, ok := known[p.Name]
		delete(known, p.Name)
		if ok && e.Revision == p.Revision && e.UpdatedAt == p.UpdatedAt && e.Title == p.Title &&
			e.Author == p.Author && e.Status == p.Status {
			continue
		}
		s.Observe(ctx, p.Name, "disk")
	}
	for name := range known {
		s.Observe(ctx, name, "disk")
	}
	return ctx.Err()
}

// Observe reads a plan from disk and, if its state is new, records it and tells the listeners.
// source says who caused the change ("disk" for anything seen by the watcher).
func (s *Service) Observe(ctx context.Context, name, source string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observe(ctx, name, source)
}

// observe is Observe with mu held.
func (s *Service) observe(ctx context.Context, name, source string) {
	if ValidateName(name) != nil {
		return // a *.json file with a name docker-agent could never address: List warns of it
	}
	p, ok, err := s.store.Get(ctx, name)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		s.idx.remove(name, err.Error())
		if s.bad[name] != err.Error() {
			s.bad[name] = err.Error()
			s.tell(name)
		}
		return
	}
	_, wasBad := s.bad[name]
	delete(s.bad, name)
	if ok {
		s.idx.put(p.Summary())
	} else {
		s.idx.remove(name, "")
	}
	e := HistoryEntry{Name: name, Removed: !ok, Source: source, SeenAt: s.now()}
	if ok {
		e = HistoryEntry{Name: name, Revision: p.Revision, Title: p.Title, Author: p.Author, Status: p.Status,
			Content: p.Content, UpdatedAt: p.UpdatedAt, Source: source, SeenAt: s.now()}
	}
	_, added, err := s.hist.Record(ctx, e)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
			s.log.Error("shared plans: recording history", "plan", name, "err", err)
		}
		return
	}
	if added || wasBad {
		s.tell(name)
	}
}

func (s *Service) tell(name string) {
	for _, fn := range s.onChange {
		fn(name)
	}
}

// Attributed runs fn, a write of plan name, on behalf of one of plandash's surfaces ("browser",
// "api", "approval") and records the new state as theirs. The write and its record happen under
// the observation lock, so the watcher, which sees the same file a moment later, finds the state
// already recorded instead of recording it as seen on disk. fn's wait for another process's plans
// lock is bounded; running out of time is ErrLockTimeout.
func (s *Service) Attributed(ctx context.Context, name, source string, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.wait)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := fn(ctx); err != nil {
		return lockTimeout(err)
	}
	s.observe(ctx, name, source)
	return nil
}

// Write stores a plan on behalf of source (see Attributed).
func (s *Service) Write(ctx context.Context, req UpsertRequest, source string) (p Plan, err error) {
	err = s.Attributed(ctx, req.Name, source, func(ctx context.Context) error {
		p, err = s.store.Upsert(ctx, req)
		return err
	})
	return p, err
}

// Delete removes a plan on behalf of source (see Attributed).
func (s *Service) Delete(ctx context.Context, name string, expected *int, source string) (deleted bool, err error) {
	err = s.Attributed(ctx, name, source, func(ctx context.Context) error {
		deleted, err = s.store.Delete(ctx, name, expected)
		return err
	})
	return deleted, err
}

// ErrLockTimeout is a write that gave up waiting for another process's plans lock.
var ErrLockTimeout = errs.New(errs.Unavailable, "the plans directory stayed locked by another process; try again")

// lockTimeout turns a write that ran out of time waiting for the lock into ErrLockTimeout.
func lockTimeout(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w (%v)", ErrLockTimeout, err)
	}
	return err
}
