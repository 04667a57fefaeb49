package app

import (
	"path/filepath"
	"strings"

	"github.com/plandash/plandash/internal/files"
)

// planDirs are the directories the plan files an agent's hook events name may be read from:
// the allowed roots (--allow-root) and that agent's own plan directory under the server user's
// home (rel, slash-separated; "" for none). Only the configuration chooses them; an event only
// names a file, and a file elsewhere is refused (issue 25, item 9). With no home, only the
// allowed roots are read.
func planDirs(allowRoots []string, home, rel string) files.PlanDirs {
	dirs := make(files.PlanDirs, 0, len(allowRoots)+1)
	for _, r := range allowRoots {
		if abs, err := filepath.Abs(r); err == nil {
			dirs = append(dirs, abs)
		}
	}
	if rel != "" && home != "" && filepath.IsAbs(home) {
		dirs = append(dirs, filepath.Join(home, filepath.FromSlash(strings.Trim(rel, "/"))))
	}
	return dirs
}
