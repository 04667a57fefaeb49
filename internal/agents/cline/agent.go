package cline

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// Agent is Cline's CLI as the registry lists it. Its hooks are script files, not entries in a
// JSON settings file, so doctor looks for them as it looks for a plugin. switch_to_act_mode is
// always held at the gate, so --gate changes nothing for it.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: "cline", Title: "Cline", CLI: "cline", Tested: "3.0.65",
		Hook: func(ctx context.Context, env agentkit.HookEnv) error {
			return RunHook(ctx, env.Stdin, env.Stdout, env.Post, HookOptions{Host: env.Host, DataDir: DataDir(env.Getenv), Stderr: env.Stderr})
		},
		Install:    install,
		Flags:      []string{agentkit.FlagProject, agentkit.FlagGate, agentkit.FlagCommand},
		GateAlways: true,
		Plugins: func(project string, getenv func(string) string) []string {
			return []string{filepath.Join(HooksDir("", getenv), "TaskStart"+HookExt), filepath.Join(HooksDir(project, getenv), "TaskStart"+HookExt)}
		},
		Connect: "plandash install cline",
		Build:   build,
	}
}

// install writes (or removes) plandash's hook files in Cline's hooks directory, the user's or
// the project's.
func install(o agentkit.InstallOptions) (fmt.Stringer, error) {
	dir := HooksDir(o.Project, o.Getenv)
	if o.Project == "" && o.Getenv("CLINE_DIR") == "" {
		dir = filepath.Join(o.Home, ".cline", "hooks")
	}
	if o.Uninstall {
		return Uninstall(dir, o.Project)
	}
	return Install(dir, InstallOptions{Command: o.Command, Server: o.Server, Data: o.Data, Root: o.Project})
}

// build is the service behind Cline's hook route.
func build(d agentkit.Deps) agentkit.Parts {
	return agentkit.Parts{Hooks: NewService(d.Plans, d.Gate, Config{Asker: d.Asker, Log: d.Log})}
}
