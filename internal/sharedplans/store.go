package sharedplans

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/plandash/plandash/internal/files"
)

// LockFileName is the sentinel docker-agent flocks during every mutation. It is never deleted.
const LockFileName = ".plans.lock"

// Store is a docker-agent plans directory. Mutations hold the cross-process flock on
// .plans.lock; reads take no lock and rely on atomic renames. A Store is safe for concurrent
// use, and any number of Stores and processes (docker-agent included) may share a directory.
type Store struct {
	dir      string
	lockPath string
	// sem serializes this process's writers before they compete for the flock, so they queue
	// without the 10 ms polling; it is a channel so waiting honours the context.
	sem      chan struct{}
	now      func() time.Time
	debounce time.Duration
	recheck  time.Duration
	settle   time.Duration // see lockSettle
	sweep    time.Duration // how often a Watcher removes old temp files
	// locked, when set, runs each time a writer has just obtained the lock. Tests use it to
	// cancel a write at the one moment no select can observe: after the wait, before the write.
	locked func()
}

// Option configures a Store.
type Option func(*Store)

// New returns the store for dir, or for DefaultDir() when dir is "". Nothing is created until
// the first mutation or Watch, as with docker-agent.
func New(dir string, opts ...Option) *Store {
	if dir == "" {
		dir = DefaultDir()
	}
	dir = filepath.Clean(dir)
	s := &Store{
		dir:      dir,
		lockPath: filepath.Join(dir, LockFileName),
		sem:      make(chan struct{}, 1),
		now:      time.Now,
		debounce: 10 * time.Millisecond,
		recheck:  100 * time.Millisecond,
		settle:   lockSettle,
		sweep:    TempSweepInterval,
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// DefaultDir is docker-agent's default plans directory: ~/.cagent/plans, or $TMPDIR/.cagent/plans
// when there is no home directory. No environment variable selects it.
func DefaultDir() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = os.TempDir()
	}
	return PlansDir(filepath.Join(home, ".cagent"))
}

// PlansDir is the plans directory inside a docker-agent data directory (its --data-dir).
func PlansDir(dataDir string) string {
	return filepath.Join(filepath.Clean(dataDir), "plans")
}

// Dir returns the plans directory.
func (s *Store) Dir() string { return s.dir }

// UpsertRequest describes a create-or-update. Nil fields keep their stored value and a non-nil
// "" clears it (the tools never clear; host surfaces may). ExpectedRevision, when set, must equal
// the stored revision (0 for a missing plan). MustExist refuses to create (ErrPlanNotFound);
// MustNotExist refuses any existing file, even one at revision 0 (a conflict with Expected 0).
type UpsertRequest struct {
	Name             string
	Content          *string
	Title            *string
	Author           *string
	Status           *string
	ExpectedRevision *int
	MustExist        bool
	MustNotExist     bool
}

func (s *Store) planPath(name string) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, name+".json"), nil
}

// Get reads a plan without locking. ok is false, with a nil error, when it does not exist; a
// file that exists but cannot be read is an error (*CorruptPlanError or an I/O error), never
// "not found". The returned Name is the requested one: the file name is the key.
func (s *Store) Get(ctx context.Context, name string) (p Plan, ok bool, err error) {
	path, err := s.planPath(name)
	if err != nil {
		return Plan{}, false, err
	}
	if err := ctx.Err(); err != nil {
		return Plan{}, false, err
	}
	p, ok, err = load(path)
	if ok {
		p.Name = name
	}
	return p, ok, err
}

func load(path string) (Plan, bool, error) { return loadFor(path, true) }

// loadFor loads a plan file, with its content only when withContent is set. Either way the
// whole file is checked, with the same verdict and error text as DecodePlan, so a corrupt plan
// stops a write whatever it would have replaced.
func loadFor(path string, withContent bool) (Plan, bool, error) {
	data, ok, err := readPlanFile(path)
	if !ok || err != nil {
		return Plan{}, false, err
	}
	var p Plan
	if withContent {
		p, err = DecodePlan(data)
	} else {
		var sum Summary
		sum, err = decodeSummary(data)
		p = Plan{Name: sum.Name, Title: sum.Title, Author: sum.Author, Status: sum.Status,
			Revision: sum.Revision, UpdatedAt: sum.UpdatedAt}
	}
	if err != nil {
		return Plan{}, false, &CorruptPlanError{File: filepath.Base(path), Err: err}
	}
	return p, true, nil
}

// Upsert creates or updates a plan under the lock, in docker-agent's order: validate, lock,
// load (a corrupt or unreadable file stops the write), existence guards, revision guard, merge,
// revision+1 and updatedAt, size caps, atomic save. A failed Upsert changes nothing on disk.
func (s *Store) Upsert(ctx context.Context, req UpsertRequest) (Plan, error) {
	path, err := s.planPath(req.Name)
	if err != nil {
		return Plan{}, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return Plan{}, err
	}
	defer unlock()

	// A new body replaces the stored one, so the stored body is validated but not unescaped
	// and copied: on a large plan that is most of the load.
	p, exists, err := loadFor(path, req.Content == nil)
	if err != nil {
		return Plan{}, err
	}
	if req.MustExist && !exists {
		return Plan{}, fmt.Errorf("%w: %q", ErrPlanNotFound, req.Name)
	}
	if req.MustNotExist && exists {
		return Plan{}, &VersionConflictError{Name: req.Name, Expected: 0, Current: p.Revision}
	}
	if req.ExpectedRevision != nil && *req.ExpectedRevision != p.Revision {
		return Plan{}, &VersionConflictError{Name: req.Name, Expected: *req.ExpectedRevision, Current: p.Revision}
	}
	p.Name = req.Name
	for _, f := range []struct{ dst, src *string }{
		{&p.Content, req.Content}, {&p.Title, req.Title}, {&p.Author, req.Author}, {&p.Status, req.Status},
	} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	p.Revision++
	p.UpdatedAt = s.now().UTC().Format(time.RFC3339)
	// The load above may have taken a while on a large plan; a caller that gave up meanwhile
	// has been told the write failed, so it must not happen.
	if err := ctx.Err(); err != nil {
		return Plan{}, err
	}
	if err := s.save(path, p); err != nil {
		return Plan{}, err
	}
	return p, nil
}

func (s *Store) save(path string, p Plan) error {
	// Checked before encoding so an oversized body is refused without allocating its encoding.
	if len(p.Content) > MaxContentSize {
		return invalidf("plan %q content is too large to store (%d bytes; max %d)", p.Name, len(p.Content), MaxContentSize)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("creating plans directory: %w", err)
	}
	data, err := EncodePlan(p)
	if err != nil {
		return fmt.Errorf("marshaling plan: %w", err)
	}
	// Never store what load would then refuse as corrupt.
	if len(data) > MaxEncodedSize {
		return invalidf("plan %q is too large to store (%d bytes; max %d)", p.Name, len(data), MaxEncodedSize)
	}
	if err := files.WriteAtomic(files.OSOps{}, path, data); err != nil {
		return fmt.Errorf("writing plan: %w", err)
	}
	return nil
}

// Delete removes a plan under the lock. deleted is false, with a nil error, when there was no
// such plan. With expected set, the plan is loaded and compared first, so a corrupt plan gives
// its corrupt error; without it the file is removed unread, which is how corrupt plans are
// recovered.
func (s *Store) Delete(ctx context.Context, name string, expected *int) (deleted bool, err error) {
	path, err := s.planPath(name)
	if err != nil {
		return false, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return false, err
	}
	defer unlock()

	if expected != nil {
		p, ok, err := load(path)
		if err != nil || !ok {
			return false, err
		}
		if p.Revision != *expected {
			return false, &VersionConflictError{Name: name, Expected: *expected, Current: p.Revision}
		}
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}
