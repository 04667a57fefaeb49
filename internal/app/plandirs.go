package app

import (
	"path/filepath"

	"github.com/plandash/plandash/internal/files"
)

// planDirs are the directories the plan files an agent's hook events name may be read from:
// the allowed roots (--allow-root) and that agent's own plan directories under the server
// user's home. Only the configuration chooses them; an event only names a file, and a file
// elsewhere is refused (issue 25, item 9).
type planDirs struct {
	Claude, Gemini, OpenCode files.PlanDirs
}

// newPlanDirs lists each agent's plan directories under home, after the allowed roots. With no
// home, only the allowed roots are read.
func newPlanDirs(allowRoots []string, home string) planDirs {
	with := func(rel ...string) files.PlanDirs {
		dirs := make(files.PlanDirs, 0, len(allowRoots)+1)
		for _, r := range allowRoots {
			if abs, err := filepath.Abs(r); err == nil {
				dirs = append(dirs, abs)
			}
		}
		if home != "" && filepath.IsAbs(home) {
			dirs = append(dirs, filepath.Join(append([]string{home}, rel...)...))
		}
		return dirs
	}
	return planDirs{
		// Claude Code writes plans to ~/.claude/plans unless its plansDirectory setting says
		// otherwise (then the plan is injected into the event, or that directory is an
		// --allow-root).
		Claude: with(".claude", "plans"),
		// Gemini CLI keeps each session's plans in ~/.gemini/tmp/<project>/<session>/plans.
		Gemini: with(".gemini", "tmp"),
		// OpenCode keeps plans of projects without git in its data directory.
		OpenCode: with(".local", "share", "opencode", "plans"),
	}
}
