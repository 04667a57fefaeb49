package codex

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// Agent is Codex CLI as the registry lists it. Its gate is always installed (the Stop hook
// holds a turn that ends with a plan), so --gate changes nothing for it.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: "codex", Title: "Codex CLI", CLI: "codex", Tested: "0.169.0",
		Hook: func(ctx context.Context, env agentkit.HookEnv) error {
			return RunHook(ctx, env.Stdin, env.Stdout, env.Post, HookOptions{Host: env.Host, Stderr: env.Stderr})
		},
		Install:    install,
		Flags:      []string{agentkit.FlagProject, agentkit.FlagGate, agentkit.FlagCommand},
		GateAlways: true,
		Settings: func(home, project string, getenv func(string) string) []string {
			return []string{filepath.Join(configDir(home, getenv), "hooks.json"), filepath.Join(project, ".codex", "hooks.json")}
		},
		HookEvents: HookEventNames,
		Connect:    "plandash install codex",
		Sessions:   sessionsDir,
		Build:      build,
	}
}

// configDir is Codex's own directory: $CODEX_HOME, else ~/.codex.
func configDir(home string, getenv func(string) string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	return filepath.Join(home, ".codex")
}

// install writes (or removes) plandash's hooks in $CODEX_HOME/hooks.json, or the project's
// .codex/hooks.json.
func install(o agentkit.InstallOptions) (fmt.Stringer, error) {
	path := filepath.Join(configDir(o.Home, o.Getenv), "hooks.json")
	if o.Project != "" {
		path = filepath.Join(o.Project, ".codex", "hooks.json")
	}
	if o.Uninstall {
		return Uninstall(path, o.Project)
	}
	return Install(path, InstallOptions{Command: o.Command, Server: o.Server, Data: o.Data, Root: o.Project})
}

// sessionsDir is where Codex CLI writes its rollout files: $CODEX_HOME/sessions, else
// ~/.codex/sessions.
func sessionsDir(getenv func(string) string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return filepath.Join(h, "sessions")
	}
	return agentkit.HomeDir(getenv, ".codex", "sessions")
}

// build is Codex's hook service and the follower of its rollout files.
func build(d agentkit.Deps) agentkit.Parts {
	apply := ApplyTo(d.Plans, d.Log)
	p := agentkit.Parts{Hooks: NewService(apply, d.Gate, Config{Log: d.Log, Asker: d.Asker})}
	if dir := d.Sessions; dir != "" {
		t := NewTailer(dir, apply, TailerOptions{StateDir: d.DataDir, Since: d.Since, Log: d.Log, Now: d.Now})
		p.Run = append(p.Run, agentkit.Follow(t, d.Log, "codex: following rollout files", "dir", dir))
	}
	return p
}
