package gemini

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// Agent is Gemini CLI as the registry lists it.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: "gemini", Title: "Gemini CLI", CLI: "gemini", Tested: "0.61.0",
		Hook: func(ctx context.Context, env agentkit.HookEnv) error {
			return RunHook(ctx, env.Stdin, env.Stdout, env.Post, HookOptions{Host: env.Host, PlansDir: env.Getenv("GEMINI_PLANS_DIR"), Stderr: env.Stderr})
		},
		Install: install,
		Flags:   []string{agentkit.FlagProject, agentkit.FlagGate, agentkit.FlagCommand},
		Settings: func(home, project string, _ func(string) string) []string {
			return []string{filepath.Join(home, ".gemini", "settings.json"), filepath.Join(project, ".gemini", "settings.json")}
		},
		HookEvents: HookEventNames,
		Connect:    "plandash install gemini --gate",
		Sessions:   func(getenv func(string) string) string { return agentkit.HomeDir(getenv, ".gemini", "tmp") },
		// Gemini CLI keeps each session's plans in ~/.gemini/tmp/<project>/<session>/plans.
		PlanDir: ".gemini/tmp",
		Build:   build,
	}
}

// install writes (or removes) plandash's hooks, and with --gate its policy file, in the user's
// or the project's .gemini.
func install(o agentkit.InstallOptions) (fmt.Stringer, error) {
	base := filepath.Join(o.Home, ".gemini")
	if o.Project != "" {
		base = filepath.Join(o.Project, ".gemini")
	}
	path := filepath.Join(base, "settings.json")
	if o.Uninstall {
		return Uninstall(path, "", o.Project)
	}
	return Install(path, InstallOptions{Command: o.Command, Server: o.Server, Data: o.Data, Gate: o.Gate, Root: o.Project})
}

// build is one Gemini CLI service for hooks and chats, and the follower of its chat files.
func build(d agentkit.Deps) agentkit.Parts {
	svc := NewService(d.Plans, d.Gate, Config{PlanDirs: d.PlanDirs, Log: d.Log, Asker: d.Asker})
	p := agentkit.Parts{Hooks: svc}
	if dir := d.Sessions; dir != "" {
		disc := svc.NewDiscoverer(dir, DiscoverOptions{StateDir: d.DataDir, Since: d.Since, Log: d.Log, Now: d.Now})
		p.Run = append(p.Run, agentkit.Follow(disc, d.Log, "gemini: following chats", "dir", dir))
	}
	return p
}
