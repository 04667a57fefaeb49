package follow

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// event handles one file-system event: a new directory is watched and scanned, a rollout file
// that was created or written is read. Events from the ancestor watched while the sessions
// directory does not exist matter only when they are a step towards it.
func (t *Follower) event(w *fsnotify.Watcher, watched, dirty map[string]bool, ev fsnotify.Event) {
	if !t.within(ev.Name) {
		if ev.Op&fsnotify.Create != 0 && strings.HasPrefix(t.dir, ev.Name+string(filepath.Separator)) {
			t.scan(w, watched, dirty)
		}
		return
	}
	if ev.Op&(fsnotify.Create|fsnotify.Write) == 0 {
		if ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 {
			delete(t.files, ev.Name)
			delete(watched, ev.Name)
			if ev.Name == t.dir {
				t.watchDir(w, watched) // watch an ancestor again, for when it comes back
			}
		}
		return
	}
	// Lstat: a symlink is neither followed as a directory nor read as a rollout, so nothing
	// outside the tree is read through one.
	fi, err := os.Lstat(ev.Name)
	if err != nil {
		return
	}
	switch {
	case fi.Mode().IsRegular() && t.matches(ev.Name):
		dirty[ev.Name] = true
	case ev.Op&fsnotify.Create != 0 && fi.IsDir() && t.enters(ev.Name):
		t.walk(w, ev.Name, watched, dirty)
	}
}

// within reports whether p is the sessions directory or under it.
func (t *Follower) within(p string) bool {
	return p == t.dir || strings.HasPrefix(p, t.dir+string(filepath.Separator))
}

// scan walks the whole tree: it watches directories not watched yet, and marks for reading
// every followed file that grew and every recent file not followed yet.
func (t *Follower) scan(w *fsnotify.Watcher, watched, dirty map[string]bool) {
	if t.watchDir(w, watched) {
		t.walk(w, t.dir, watched, dirty)
	}
}

// watchDir watches the sessions directory, or, while it does not exist, its nearest existing
// ancestor, so that its creation is an event instead of a wait for the next rescan. It reports
// whether the directory itself is watched.
func (t *Follower) watchDir(w *fsnotify.Watcher, watched map[string]bool) bool {
	// Each turn goes one level deeper when a level appeared while the one above was being
	// watched (mkdir -p is faster than we are); the depth bounds the turns.
	for range strings.Count(t.dir, string(filepath.Separator)) + 2 {
		if watched[t.dir] {
			return true
		}
		if err := w.Add(t.dir); err == nil {
			watched[t.dir] = true
			t.unwatchAncestor(w)
			return true
		}
		anc := nearestDir(t.dir)
		if anc == "" {
			return false
		}
		if anc != t.anc {
			if err := w.Add(anc); err != nil {
				t.opts.Log.Warn(t.name+": cannot watch; relying on rescans", "dir", anc, "err", err)
				return false
			}
			t.unwatchAncestor(w)
			t.anc = anc
			t.opts.Log.Debug(t.name+": the sessions directory does not exist yet; watching its nearest ancestor",
				"dir", t.dir, "ancestor", anc)
		}
		// The next level down may have appeared before the watch was in place.
		rel, _ := filepath.Rel(anc, t.dir)
		next := filepath.Join(anc, strings.Split(rel, string(filepath.Separator))[0])
		if _, err := os.Stat(next); err != nil {
			return false
		}
	}
	return false
}

func (t *Follower) unwatchAncestor(w *fsnotify.Watcher) {
	if t.anc != "" {
		_ = w.Remove(t.anc) // it may be gone already
		t.anc = ""
	}
}

// nearestDir is the nearest ancestor of dir that exists as a directory; "" when none does.
func nearestDir(dir string) string {
	for a := filepath.Dir(dir); ; a = filepath.Dir(a) {
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			return a
		}
		if a == filepath.Dir(a) {
			return ""
		}
	}
}

func (t *Follower) walk(w *fsnotify.Watcher, root string, watched, dirty map[string]bool) {
	cutoff := t.opts.Now().Add(-t.opts.Since)
	start := root
	if root == t.dir {
		// The sessions directory itself may be a link the user made (to another disk): the
		// trailing separator makes WalkDir follow it. Links inside it are never followed.
		start = root + string(filepath.Separator)
	}
	_ = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a directory removed under us
		}
		if p == start {
			p = root
		}
		if d.IsDir() { // WalkDir does not follow symlinks: a linked directory is not entered
			if !t.enters(p) {
				return filepath.SkipDir
			}
			if !watched[p] {
				if err := w.Add(p); err != nil {
					t.opts.Log.Warn(t.name+": cannot watch; relying on rescans", "dir", p, "err", err)
				} else {
					watched[p] = true
				}
			}
			return nil
		}
		// Regular files only: a FIFO would block the open, a symlink could lead anywhere.
		if !d.Type().IsRegular() || !t.matches(p) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if f, ok := t.files[p]; ok {
			if fi.Size() != f.mark.Offset {
				dirty[p] = true
			}
			return nil
		}
		m, known := t.marks[p]
		// A file never followed and not modified since the cutoff is left alone until Codex
		// writes to it again.
		if known && fi.Size() != m.Offset || !known && fi.ModTime().After(cutoff) {
			dirty[p] = true
		}
		return nil
	})
}

// enters reports whether the directory p is within Source.MaxDepth levels of the followed one.
func (t *Follower) enters(p string) bool {
	if t.src.MaxDepth <= 0 || p == t.dir {
		return true
	}
	rel, err := filepath.Rel(t.dir, p)
	return err == nil && strings.Count(rel, string(filepath.Separator))+1 <= t.src.MaxDepth
}
