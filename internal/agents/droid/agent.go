package droid

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// Agent is Factory's Droid as the registry lists it.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: "droid", Title: "Droid", CLI: "droid", Tested: "0.225.2",
		Hook: func(ctx context.Context, env agentkit.HookEnv) error {
			return RunHook(ctx, env.Stdin, env.Stdout, env.Post, HookOptions{Host: env.Host, Stderr: env.Stderr})
		},
		Install: install,
		Flags:   []string{agentkit.FlagProject, agentkit.FlagGate, agentkit.FlagCommand},
		Settings: func(home, project string, _ func(string) string) []string {
			return []string{filepath.Join(home, ".factory", "settings.json"), filepath.Join(project, ".factory", "settings.json")}
		},
		HookEvents: HookEventNames,
		Connect:    "plandash install droid --gate",
		Sessions:   func(getenv func(string) string) string { return agentkit.HomeDir(getenv, ".factory", "sessions") },
		Build:      build,
	}
}

// install writes (or removes) plandash's hooks in the user's or the project's .factory.
func install(o agentkit.InstallOptions) (fmt.Stringer, error) {
	base := filepath.Join(o.Home, ".factory")
	if o.Project != "" {
		base = filepath.Join(o.Project, ".factory")
	}
	path := filepath.Join(base, "settings.json")
	if o.Uninstall {
		return Uninstall(path, o.Project)
	}
	return Install(path, InstallOptions{Command: o.Command, Server: o.Server, Data: o.Data, Gate: o.Gate, Root: o.Project})
}

// build is one Droid service for hooks and session files, and the follower of those files.
func build(d agentkit.Deps) agentkit.Parts {
	svc := NewService(d.Plans, d.Gate, Config{Log: d.Log, Asker: d.Asker})
	p := agentkit.Parts{Hooks: svc}
	if dir := d.Sessions; dir != "" {
		disc := svc.NewDiscoverer(dir, DiscoverOptions{StateDir: d.DataDir, Since: d.Since, Log: d.Log, Now: d.Now})
		p.Run = append(p.Run, agentkit.Follow(disc, d.Log, "droid: following session files", "dir", dir))
	}
	return p
}
