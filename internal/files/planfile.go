package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PlanDirs are the directories plan files named by agents' hook events may be read from. They
// come from the server's configuration (--allow-root and the agents' own plan directories
// under the server user's home), never from an event: an event only names the file, and a
// name outside these directories is refused. A directory need not exist when the server
// starts (an agent makes ~/.claude/plans at its first plan), so each read uses the ones that
// exist at that moment.
type PlanDirs []string

// ErrNotPlan is a path that does not name a Markdown file: agents write their plans as .md
// files, so nothing else (a token, a key, /proc/self/environ) is read as a plan even under an
// allowed directory.
var ErrNotPlan = errors.New("not a Markdown (.md) file")

// Read returns the plan file at path in at most limit bytes, through the same confined,
// non-blocking reader as file plans (Roots.Read): path must be absolute, end in .md, resolve
// under one of the directories without a symlink leading out, and be a regular file (a FIFO is
// refused without waiting for a writer). Errors match ErrDenied, ErrNotPlan, fs.ErrNotExist,
// ErrNotRegular or ErrTooLarge, and their text says which path and why, for the person
// deciding.
func (d PlanDirs) Read(path string, limit int64) ([]byte, error) {
	if !filepath.IsAbs(path) {
		return nil, deniedf("plan file not shown: %q is not an absolute path", path)
	}
	if !strings.EqualFold(filepath.Ext(path), ".md") {
		return nil, fmt.Errorf("plan file not shown: %s: %w", path, ErrNotPlan)
	}
	var existing []string
	for _, dir := range d {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			existing = append(existing, dir)
		}
	}
	if len(existing) == 0 {
		return nil, deniedf("plan file not shown: %s is outside the directories plandash reads plans from (none exists)", path)
	}
	roots, err := NewRoots(existing...)
	if err != nil { // a directory removed since the check above
		return nil, fmt.Errorf("plan file not shown: %w", err)
	}
	b, err := roots.Read(path, limit)
	switch {
	case err == nil:
		return b, nil
	case errors.Is(err, ErrDenied):
		return nil, deniedf("plan file not shown: %s is outside the directories plandash reads plans from (%s)", path, strings.Join(shortList(existing), ", "))
	case errors.Is(err, ErrTooLarge):
		return nil, fmt.Errorf("plan file not shown: %s is over the %d KiB limit: %w", path, limit>>10, ErrTooLarge)
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("plan file not shown: %s does not exist: %w", path, fs.ErrNotExist)
	}
	return nil, fmt.Errorf("plan file not shown: %w", err)
}

// shortList is the list of directories a refusal names, cut so the message stays short however
// many roots are configured.
func shortList(dirs []string) []string {
	const most = 8
	if len(dirs) > most {
		return append(dirs[:most:most], "…")
	}
	return dirs
}
