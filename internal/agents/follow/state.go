package follow

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/plandash/plandash/internal/files"
)

// fileMark is how far one file was applied, and what its Parser had learned.
type fileMark struct {
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
	Saved
	Skipping bool  `json:"skipping,omitempty"` // inside an over-long line
	ModNano  int64 `json:"mod,omitempty"`      // the file's mtime when last read, for eviction
}

type stateDoc struct {
	Version int                 `json:"version"`
	Files   map[string]fileMark `json:"files"`
}

// loadState reads the state file; a missing or unreadable one is an empty state (the worst
// that costs is applying recent history again).
func loadState(dir, name string) (map[string]fileMark, error) {
	out := map[string]fileMark{}
	if dir == "" {
		return out, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	var d stateDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return out, err
	}
	for p, m := range d.Files {
		if filepath.IsAbs(p) && m.Offset >= 0 {
			out[p] = m
		}
	}
	return out, nil
}

// saveState writes the state atomically (temp file, rename), keeping at most max entries, the
// most recently modified files first.
func saveState(dir, name string, marks map[string]fileMark, max int) error {
	if dir == "" {
		return nil
	}
	if len(marks) > max {
		paths := make([]string, 0, len(marks))
		for p := range marks {
			paths = append(paths, p)
		}
		slices.SortFunc(paths, func(a, b string) int { return int(marks[b].ModNano>>20 - marks[a].ModNano>>20) })
		for _, p := range paths[max:] {
			delete(marks, p)
		}
	}
	b, err := json.Marshal(stateDoc{Version: 1, Files: marks})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return files.WriteAtomic(files.OSOps{}, filepath.Join(dir, name), b)
}
