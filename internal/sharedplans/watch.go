package sharedplans

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Event reports that a plan changed on disk, whoever changed it. Exactly one of these holds:
// Removed is true (the plan is gone); Err is set (the file exists but is unreadable: errors.Is
// ErrCorrupt for a bad file, anything else for an I/O error); or Plan is the plan as read back,
// with Name set from the file name.
type Event struct {
	Name    string
	Plan    Plan
	Removed bool
	Err     error
}

// Watcher delivers Events for one Store until its context ends.
type Watcher struct {
	dir      string
	debounce time.Duration
	recheck  time.Duration
	fw       *fsnotify.Watcher
	fn       func(Event)
	seed     maphash.Seed
	seen     map[string]fingerprint // last state reported per plan, to drop no-op events
	pending  map[string]pendingRead
	nextDue  time.Time
	done     chan struct{}
	// sweep removes old temp files; it runs every sweepEvery from the watcher's goroutine.
	sweep      func(context.Context)
	sweepEvery time.Duration
}

type pendingRead struct {
	due      time.Time
	rechecks int
}

// fingerprint identifies a reported state without keeping every plan body in memory.
type fingerprint struct {
	removed               bool
	errText               string
	title, author, status string
	updatedAt             string
	revision, contentLen  int
	contentHash           uint64
}

// maxRechecks bounds how long a file that reads as corrupt is given to turn into a plan (a
// non-atomic writer mid-write) before the corrupt state is reported.
const maxRechecks = 2

// Watch starts watching the plans directory, creating it (0700) if needed, as docker-agent would
// on its first write. It returns once the watch is live, so a caller that lists the plans right
// after Watch returns misses nothing: every later change is reported. fn is called from one
// goroutine, one event at a time, for each plan whose state changed; events are coalesced per
// plan over a short debounce so the several file-system events of one write make one Event.
// The lock file, temp files and directories are ignored, but temp files older than TempMaxAge
// are removed every TempSweepInterval (see CleanTemp).
func (s *Store) Watch(ctx context.Context, fn func(Event)) (*Watcher, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating plans directory: %w", err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching plans directory: %w", err)
	}
	if err := fw.Add(s.dir); err != nil {
		_ = fw.Close()
		return nil, fmt.Errorf("watching plans directory: %w", err)
	}
	w := &Watcher{
		dir: s.dir, debounce: s.debounce, recheck: s.recheck, fw: fw, fn: fn,
		seed: maphash.MakeSeed(), seen: map[string]fingerprint{}, pending: map[string]pendingRead{},
		done:  make(chan struct{}),
		sweep: func(ctx context.Context) { _, _ = s.CleanTemp(ctx) }, sweepEvery: s.sweep,
	}
	go w.run(ctx)
	return w, nil
}

// Wait blocks until the watcher has stopped (its context ended) and every call to fn returned.
func (w *Watcher) Wait() { <-w.done }

func (w *Watcher) run(ctx context.Context) {
	defer close(w.done)
	defer w.fw.Close()
	flush := time.NewTimer(time.Hour)
	flush.Stop()
	var reattach <-chan time.Time
	// The periodic pass: a writer killed mid-write (kill -9, a crash, a full disk) while we
	// run leaves a temp file that no event will ever mention again, so old ones are looked for
	// now and then rather than only at start-up.
	sweep := time.NewTicker(w.sweepEvery)
	defer sweep.Stop()
	for {
		if len(w.pending) > 0 {
			flush.Reset(time.Until(w.nextDue))
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if filepath.Clean(ev.Name) == w.dir {
				// The directory itself went away or moved: our watch no longer sees it.
				if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
					reattach = w.reattach()
				}
				continue
			}
			w.noteFile(ev.Name, time.Now())
		case _, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			// Most likely a queue overflow: events were lost, so look at everything again.
			w.rescan(time.Now())
		case <-reattach:
			reattach = w.reattach()
		case now := <-flush.C:
			w.flush(ctx, now)
		case <-sweep.C:
			w.sweep(ctx)
		}
	}
}

// reattach re-creates and re-watches the directory after it was removed or renamed (docker-agent
// re-creates it on its next write anyway). It returns a retry tick while that fails.
func (w *Watcher) reattach() <-chan time.Time {
	_ = w.fw.Remove(w.dir)
	if os.MkdirAll(w.dir, 0o700) != nil || w.fw.Add(w.dir) != nil {
		return time.After(500 * time.Millisecond)
	}
	w.rescan(time.Now())
	return nil
}

func (w *Watcher) noteFile(path string, now time.Time) {
	base := filepath.Base(path)
	if filepath.Ext(base) != ".json" {
		return // the lock file, temp files (<name>.json<digits>, .atomic-*), anything else
	}
	w.schedule(strings.TrimSuffix(base, ".json"), now.Add(w.debounce), 0)
}

// schedule asks for a read of name no later than due. An already pending read is never pushed
// back, so a plan written continuously is still reported every debounce interval.
func (w *Watcher) schedule(name string, due time.Time, rechecks int) {
	if p, ok := w.pending[name]; ok {
		if p.due.Before(due) {
			due = p.due
		}
		rechecks = max(rechecks, p.rechecks)
	}
	w.pending[name] = pendingRead{due: due, rechecks: rechecks}
	if len(w.pending) == 1 || due.Before(w.nextDue) {
		w.nextDue = due
	}
}

// rescan schedules a read of every plan on disk and every plan reported before, so missed
// events (overflow, a re-created directory) still end in the right state.
func (w *Watcher) rescan(now time.Time) {
	due := now.Add(w.debounce)
	if entries, err := os.ReadDir(w.dir); err == nil {
		for _, e := range entries {
			if !e.IsDir() && filepath.Ext(e.Name()) == ".json" {
				w.schedule(strings.TrimSuffix(e.Name(), ".json"), due, 0)
			}
		}
	}
	for name, fp := range w.seen {
		if !fp.removed {
			w.schedule(name, due, 0)
		}
	}
}

func (w *Watcher) flush(ctx context.Context, now time.Time) {
	var ready []string
	for name, p := range w.pending {
		if !p.due.After(now) {
			ready = append(ready, name)
		}
	}
	slices.Sort(ready)
	for _, name := range ready {
		rechecks := w.pending[name].rechecks
		delete(w.pending, name)
		if ctx.Err() != nil {
			return
		}
		w.check(name, rechecks, now)
	}
	w.nextDue = time.Time{}
	for _, p := range w.pending {
		if w.nextDue.IsZero() || p.due.Before(w.nextDue) {
			w.nextDue = p.due
		}
	}
}

// check reads one plan back and reports it if its state differs from the last one reported.
func (w *Watcher) check(name string, rechecks int, now time.Time) {
	p, ok, err := load(filepath.Join(w.dir, name+".json"))
	var (
		ev = Event{Name: name}
		fp fingerprint
	)
	switch {
	case errors.Is(err, errIsDirectory):
		// A directory named *.json is not a plan: it only matters if it replaced one.
		if old, seen := w.seen[name]; !seen || old.removed {
			w.seen[name] = fingerprint{removed: true}
			return
		}
		ev.Removed, fp.removed = true, true
	case err == nil && !ok:
		ev.Removed, fp.removed = true, true
	case err != nil:
		if errors.Is(err, ErrCorrupt) && rechecks < maxRechecks {
			w.schedule(name, now.Add(w.recheck), rechecks+1)
			return
		}
		ev.Err, fp.errText = err, err.Error()
	default:
		p.Name = name
		ev.Plan = p
		fp = fingerprint{title: p.Title, author: p.Author, status: p.Status, updatedAt: p.UpdatedAt,
			revision: p.Revision, contentLen: len(p.Content), contentHash: maphash.String(w.seed, p.Content)}
	}
	if old, seen := w.seen[name]; seen && old == fp {
		return
	}
	// A removal of a plan never reported is still reported: the caller may know it from a List.
	w.seen[name] = fp
	w.fn(ev)
}
