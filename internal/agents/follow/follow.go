// Package follow follows agents' session files (JSON lines the agent appends to) as they grow:
// bounded reads of complete lines, regular files only (no FIFO, no symlink out of the
// directory), offsets kept across restarts, and a watch with periodic rescans. Each agent
// adapter supplies a Source: which files, and a Parser per file.
package follow

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Source is what a Follower needs to know of one agent's files.
type Source struct {
	// Name prefixes the Follower's log lines ("codex tailer").
	Name string
	// StateFile is the name of the state file in Options.StateDir.
	StateFile string
	// Match reports whether the file at rel (relative to the followed directory, with the
	// OS's separators) is one to follow.
	Match func(rel string) bool
	// MaxDepth bounds how many directory levels under the followed directory are entered and
	// watched; 0 enters every level.
	MaxDepth int
	// MaxLineBytes bounds one line: a longer one is skipped to its end and reported, never
	// buffered whole. 8 MiB when zero.
	MaxLineBytes int
	// New makes the Parser of one file, resumed with what its parser had saved (zero for a file
	// read from its start).
	New func(path string, saved Saved) Parser
}

// Saved is what a Parser learned from a file's earlier lines that later lines need (the
// session's id, its working directory); it is kept with the file's offset across restarts.
type Saved struct {
	Thread string `json:"thread,omitempty"`
	Cwd    string `json:"cwd,omitempty"`
}

// Parser turns one file's lines into what its agent's adapter applies.
type Parser interface {
	// Line takes one complete line (without its newline), numbered from 1. An error skips the
	// line; it is logged, and summed up when there are many.
	Line(b []byte, number int) error
	// Flush applies the lines taken since the last Flush. On error nothing of them may stay
	// applied in the Parser's own state: the same lines are read again later and must translate
	// the same way.
	Flush(ctx context.Context) error
	// Saved is what to keep for a restart, as of the last successful Flush.
	Saved() Saved
}

// Options tunes a Follower. Zero values take the defaults named.
type Options struct {
	// StateDir holds the state file (Source.StateFile) that remembers how far each file was
	// applied, so a restart does not apply history again. No state is kept when empty.
	StateDir string
	// Since limits the first read to files modified this recently; 24h when zero. Older files
	// are read (from their start) only once the agent writes to them again (a resumed session).
	Since time.Duration
	// Rescan is how often the whole tree is checked besides the file-system events, for
	// anything the events missed (watch limits, a directory created and written at once);
	// 30s when zero.
	Rescan time.Duration
	// ApplyTimeout bounds one Flush; a batch that times out is tried again later. 30s when zero.
	ApplyTimeout time.Duration
	// Retry is how long a failed Flush waits before it is tried again; 2s when zero.
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

// Follower follows an agent's session files (JSON lines, appended to) under one directory as
// the agent writes them, and hands each file's new complete lines to that file's Parser. Build
// it with New and start it with Run.
type Follower struct {
	dir  string
	src  Source
	name string
	opts Options

	// Owned by Run's goroutine.
	anc   string // the nearest existing ancestor watched while dir does not exist, else ""
	skips skipLog
	files map[string]*tailFile
	marks map[string]fileMark // files known but not followed (older than Since) keep no mark
	dirty bool                // marks changed since the state was saved
}

// New makes a Follower of the directory dir.
func New(dir string, src Source, opts Options) *Follower {
	if opts.Since <= 0 {
		opts.Since = 24 * time.Hour
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
	if src.MaxLineBytes <= 0 {
		src.MaxLineBytes = 8 << 20
	}
	if src.Name == "" {
		src.Name = "follower"
	}
	return &Follower{dir: filepath.Clean(dir), src: src, name: src.Name, opts: opts, files: map[string]*tailFile{},
		skips: skipLog{log: opts.Log, name: src.Name, files: map[string]*skipCount{}}}
}

// Run follows the tree until ctx ends, then saves the state and returns nil. The directory
// need not exist yet: its nearest existing ancestor is watched, and the directory followed as
// soon as it appears (a user's first Codex session). It returns an error only when
// the file-system watcher cannot be made or the state directory is unusable.
func (t *Follower) Run(ctx context.Context) error {
	marks, err := loadState(t.opts.StateDir, t.src.StateFile)
	if err != nil {
		t.opts.Log.Warn(t.name+": state unreadable; starting afresh", "dir", t.opts.StateDir, "err", err)
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
			t.opts.Log.Warn(t.name+": watch error", "err", err)
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
func (t *Follower) readDirty(ctx context.Context, dirty map[string]bool) (failed bool) {
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
			t.opts.Log.Warn(t.name+": read failed", "file", p, "err", err)
		}
		delete(dirty, p)
	}
	return failed
}

// follow adds f, dropping the least recently modified file when MaxFiles are followed.
func (t *Follower) follow(f *tailFile) {
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
func (t *Follower) maybeSave() {
	if t.dirty {
		t.save()
	}
}

func (t *Follower) save() {
	if err := saveState(t.opts.StateDir, t.src.StateFile, t.marks, t.opts.MaxFiles); err != nil {
		t.opts.Log.Warn(t.name+": state not saved", "dir", t.opts.StateDir, "err", err)
		return
	}
	t.dirty = false
}

// matches reports whether p, under the followed directory, names a file to follow.
func (t *Follower) matches(p string) bool {
	rel, err := filepath.Rel(t.dir, p)
	return err == nil && t.src.Match(rel)
}
