package qwen

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// Agent is Qwen Code as the registry lists it.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: "qwen", Title: AgentTitle, CLI: "qwen", Tested: "0.24.4",
		Hook: func(ctx context.Context, env agentkit.HookEnv) error {
			return RunHook(ctx, env.Stdin, env.Stdout, env.Post, HookOptions{Host: env.Host, Stderr: env.Stderr})
		},
		Install: install,
		Flags:   []string{agentkit.FlagProject, agentkit.FlagGate, agentkit.FlagCommand},
		Settings: func(home, project string, getenv func(string) string) []string {
			user := filepath.Join(home, ".qwen", "settings.json")
			if getenv != nil && getenv("QWEN_HOME") != "" {
				user = SettingsPath(getenv)
			}
			return []string{user, filepath.Join(project, ".qwen", "settings.json")}
		},
		HookEvents: HookEventNames,
		Connect:    "plandash install qwen --gate",
		Sessions:   ChatDir,
		Build:      build,
	}
}

// install writes (or removes) plandash's hooks in the user's or the project's Qwen settings.
func install(o agentkit.InstallOptions) (fmt.Stringer, error) {
	path := filepath.Join(o.Home, ".qwen", "settings.json")
	if o.Getenv != nil && o.Getenv("QWEN_HOME") != "" {
		path = SettingsPath(o.Getenv)
	}
	if o.Project != "" {
		path = filepath.Join(o.Project, ".qwen", "settings.json")
	}
	if o.Uninstall {
		return Uninstall(path, o.Project)
	}
	return Install(path, InstallOptions{Command: o.Command, Server: o.Server, Data: o.Data, Gate: o.Gate, Root: o.Project})
}

// build is one Qwen Code service for hooks and chat files, and the follower of those files.
func build(d agentkit.Deps) agentkit.Parts {
	svc := NewService(d.Plans, d.Gate, Config{Log: d.Log, Asker: d.Asker})
	p := agentkit.Parts{Hooks: svc}
	if dir := d.Sessions; dir != "" {
		disc := svc.NewDiscoverer(dir, DiscoverOptions{StateDir: d.DataDir, Since: d.Since, Log: d.Log, Now: d.Now})
		p.Run = append(p.Run, agentkit.Follow(disc, d.Log, "qwen: following chat files", "dir", dir))
	}
	return p
}
