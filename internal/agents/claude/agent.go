package claude

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// Agent is Claude Code as the registry lists it.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: "claude", Title: "Claude Code", CLI: "claude", Tested: "2.1.328",
		Hook: func(ctx context.Context, env agentkit.HookEnv) error {
			return RunHook(ctx, env.Stdin, env.Stdout, env.Post, HookOptions{Host: env.Host, Stderr: env.Stderr})
		},
		Install: install,
		Flags: []string{agentkit.FlagProject, agentkit.FlagGate, agentkit.FlagAllTools, agentkit.FlagShared,
			agentkit.FlagToken, agentkit.FlagCommand},
		Settings: func(home, project string, _ func(string) string) []string {
			return []string{filepath.Join(home, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.json"),
				filepath.Join(project, ".claude", "settings.local.json")}
		},
		Connect:  "plandash install claude --gate",
		Sessions: projectsDir,
		PlanDir:  ".claude/plans",
		Build:    build,
	}
}

// install writes (or removes) plandash's hooks in the user's or the project's settings.
func install(o agentkit.InstallOptions) (fmt.Stringer, error) {
	if o.Shared && o.Project == "" {
		return nil, errors.New("--shared names the project's team-shared settings file: give --project DIR too")
	}
	base := filepath.Join(o.Home, ".claude")
	if o.Project != "" {
		base = filepath.Join(o.Project, ".claude")
	}
	path := settingsPath(base, o.Project != "", o.Shared, o.Stderr)
	if o.Uninstall {
		return Uninstall(path, o.Project)
	}
	return Install(path, InstallOptions{Command: o.Command, Server: o.Server, Data: o.Data, Token: o.Token, Gate: o.Gate,
		AllTools: o.AllTools, Root: o.Project})
}

// settingsPath is the Claude Code settings file install writes: ~/.claude/settings.json for
// the user; in a project, the local file Claude Code keeps out of git (settings.local.json),
// since the hooks name this machine's binary by its absolute path, unless the team-shared
// settings.json is asked for with --shared. Hooks of plandash already in the other project file
// would run twice: say so.
func settingsPath(base string, project, shared bool, stderr io.Writer) string {
	if !project {
		return filepath.Join(base, "settings.json")
	}
	path, other := filepath.Join(base, "settings.local.json"), filepath.Join(base, "settings.json")
	if shared {
		path, other = other, path
	}
	if b, err := os.ReadFile(other); err == nil && strings.Contains(string(b), " hook claude") && stderr != nil {
		fmt.Fprintf(stderr, "plandash: %s also has plandash's hooks, which would run twice: remove them with `plandash install claude --project DIR --uninstall%s`\n",
			other, map[bool]string{true: "", false: " --shared"}[shared])
	}
	return path
}

// projectsDir is where Claude Code writes its transcripts: $CLAUDE_CONFIG_DIR/projects, else
// ~/.claude/projects.
func projectsDir(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "projects")
	}
	return agentkit.HomeDir(getenv, ".claude", "projects")
}

// build is one Claude Code service for hooks and transcripts, so that a session seen both ways
// is one, and the followers of its transcripts and task lists.
func build(d agentkit.Deps) agentkit.Parts {
	svc := NewService(d.Plans, d.Gate, Config{PlanDirs: d.PlanDirs, Log: d.Log, Asker: d.Asker})
	p := agentkit.Parts{Hooks: svc}
	if dir := d.Sessions; dir != "" {
		disc := svc.NewDiscoverer(dir, DiscoverOptions{StateDir: d.DataDir, Since: d.Since, Log: d.Log, Now: d.Now})
		tl := svc.NewTaskLists(filepath.Join(filepath.Dir(dir), "tasks"), d.Since, d.Log, d.Now)
		p.Run = append(p.Run, agentkit.Follow(disc, d.Log, "claude: following transcripts", "dir", dir),
			func(ctx context.Context) { _ = tl.Run(ctx) })
	}
	return p
}
