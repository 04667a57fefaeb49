package codex

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// TailerOptions tunes a Tailer. Zero values take the defaults named.
type TailerOptions struct {
	// StateDir holds the state file (StateFile) that remembers how far each rollout was
	// applied, so a restart does not apply history again. No state is kept when empty.
	StateDir string
	// Since limits the first read to files modified this recently; 24h when zero. Older files
	// are read (from their start) only once Codex writes to them again (a resumed session).
	Since time.Duration
	// Host names the machine, recorded with each session; os.Hostname when empty.
	Host string
	// Rescan is how often the whole tree is checked besides the file-system events, for
	// anything the events missed (watch limits, a directory created and written at once);
	// 30s when zero.
	Rescan time.Duration
	// ApplyTimeout bounds one apply; a batch that times out is tried again later. 30s when zero.
	ApplyTimeout time.Duration
	// Retry is how long a failed apply waits before it is tried again; 2s when zero.
	Retry time.Duration
	// MaxFiles bounds the files followed and remembered, the most recently modified kept;
	// 4096 when zero.
	MaxFiles int
	// SkipLogEvery is how often skipped lines are summed up: per file and interval the first is
	// logged in full and the rest in one summary line at the interval's end. A minute when zero.
	SkipLogEvery time.Duration
	// Log receives skipped lines and failed applies; slog.Default when nil.
	Log *slog.Logger
	// Now is the clock for Since; time.Now when nil.
	Now func() time.Time
}

// Tailer follows Codex's rollout files under a sessions directory as Codex appends to them and
// applies what they say. Build it with NewTailer and start it with Run.
type Tailer struct {
	dir   string
	apply ApplyFunc
	opts  TailerOptions

	// Owned by Run's goroutine.
	anc   string // the nearest existing ancestor watched while dir does not exist, else ""
	skips skipLog
	files map[string]*tailFile
	marks map[string]fileMark // files known but not followed (older than Since) keep no mark
	dirty bool                // marks changed since the state was saved
}

// NewTailer makes a Tailer of the sessions directory dir ($CODEX_HOME/sessions, by default
// ~/.codex/sessions) that hands each batch of translated messages to apply (see ApplyTo).
func NewTailer(dir string, apply ApplyFunc, opts TailerOptions) *Tailer {
	if opts.Since <= 0 {
		opts.Since = 24 * time.Hour
	}
	if opts.Host == "" {
		opts.Host, _ = os.Hostname()
	}
	if opts.Rescan <= 0 {
		opts.Rescan = 30 * time.Second
	}
	if opts.ApplyTimeout <= 0 {
		opts.ApplyTimeout = 30 * time.Second
	}
	if opts.Retry <= 0 {
		opts.Retry = 2 * time.Second
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = 4096
	}
	if opts.SkipLogEvery <= 0 {
		opts.SkipLogEvery = time.Minute
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Tailer{dir: filepath.Clean(dir), apply: apply, opts: opts, files: map[string]*tailFile{},
		skips: skipLog{log: opts.Log, files: map[string]*skipCount{}}}
}

// Run follows the tree until ctx ends, then saves the state and returns nil. The directory
// need not exist yet: its nearest existing ancestor is watched, and the directory followed as
// soon as it appears (a user's first Codex session). It returns an error only when
// the file-system watcher cannot be made or the state directory is unusable.
func (t *Tailer) Run(ctx context.Context) error {
	marks, err := loadState(t.opts.StateDir)
	if err != nil {
		t.opts.Log.Warn("codex tailer: state unreadable; starting afresh", "dir", t.opts.StateDir, "err", err)
	}
	t.marks = marks
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	defer t.save()
	defer t.skips.flush()

	dirty := map[string]bool{}
	watched := map[string]bool{}
	t.scan(w, watched, dirty)
	rescan := time.NewTicker(t.opts.Rescan)
	defer rescan.Stop()
	skipLog := time.NewTicker(t.opts.SkipLogEvery)
	defer skipLog.Stop()
	var retry <-chan time.Time
	for {
		if len(dirty) > 0 {
			if t.readDirty(ctx, dirty) {
				retry = time.After(t.opts.Retry)
			}
			t.maybeSave()
		}
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			t.event(w, watched, dirty, ev)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			// An overflow loses events; the next rescan finds what they said.
			t.opts.Log.Warn("codex tailer: watch error", "err", err)
		case <-rescan.C:
			t.scan(w, watched, dirty)
		case <-skipLog.C:
			t.skips.flush()
		case <-retry:
			retry = nil
			for p := range t.files {
				dirty[p] = true
			}
		}
	}
}

// readDirty reads every file marked dirty and reports whether an apply failed (the file then
// stays dirty, for the retry).
func (t *Tailer) readDirty(ctx context.Context, dirty map[string]bool) (failed bool) {
	for p := range dirty {
		if ctx.Err() != nil {
			return false
		}
		f, ok := t.files[p]
		if !ok {
			f = t.newFile(p, t.marks[p])
			t.follow(f)
		}
		err := t.read(ctx, f)
		t.marks[p] = f.mark
		switch {
		case errors.Is(err, errApply):
			failed = true
			continue
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, errNotRegular):
			// Gone, or swapped for a FIFO or a symlink since it was listed: forget it.
			delete(t.files, p)
			delete(t.marks, p)
			t.dirty = true
		case err != nil:
			t.opts.Log.Warn("codex tailer: read failed", "file", p, "err", err)
		}
		delete(dirty, p)
	}
	return failed
}

// follow adds f, dropping the least recently modified file when MaxFiles are followed.
func (t *Tailer) follow(f *tailFile) {
	if len(t.files) >= t.opts.MaxFiles {
		var oldest string
		for p, g := range t.files {
			if oldest == "" || g.mark.ModNano < t.files[oldest].mark.ModNano {
				oldest = p
			}
		}
		delete(t.files, oldest)
	}
	t.files[f.path] = f
}

// maybeSave writes the state after reads that advanced a mark. Reads happen in bursts (one per
// batch of events), so this is one small write per burst.
func (t *Tailer) maybeSave() {
	if t.dirty {
		t.save()
	}
}

func (t *Tailer) save() {
	if err := saveState(t.opts.StateDir, t.marks, t.opts.MaxFiles); err != nil {
		t.opts.Log.Warn("codex tailer: state not saved", "dir", t.opts.StateDir, "err", err)
		return
	}
	t.dirty = false
}

// isRollout reports whether p names a rollout file.
func isRollout(p string) bool {
	name := filepath.Base(p)
	return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl")
}
