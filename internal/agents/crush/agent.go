package crush

import (
	"context"
	"fmt"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// Agent is Crush as the registry lists it. It has one hook event and no plan mode: its todo
// list shows, its questions are answered in plandash, and with --gate the calls it asks
// permission for wait at the gate first.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: AgentName, Title: AgentTitle, CLI: "crush", Tested: "0.96.1",
		Hook: func(ctx context.Context, env agentkit.HookEnv) error {
			return RunHook(ctx, env.Stdin, env.Stdout, env.Post, HookOptions{Host: env.Host, Stderr: env.Stderr})
		},
		Install: func(o agentkit.InstallOptions) (fmt.Stringer, error) {
			path := userConfig(o.Home, o.Getenv)
			if o.Project != "" {
				path = ProjectConfigPath(o.Project)
			}
			if o.Uninstall {
				return Uninstall(path, o.Project)
			}
			return Install(path, InstallOptions{Command: o.Command, Server: o.Server, Data: o.Data, Gate: o.Gate, Root: o.Project})
		},
		Flags: []string{agentkit.FlagProject, agentkit.FlagGate, agentkit.FlagCommand},
		Settings: func(home, project string, getenv func(string) string) []string {
			return []string{userConfig(home, getenv), ProjectConfigPath(project)}
		},
		HookEvents: HookEventNames,
		Connect:    "plandash install crush --gate",
		Build: func(d agentkit.Deps) agentkit.Parts {
			return agentkit.Parts{Hooks: NewService(d.Plans, d.Gate, Config{Log: d.Log, Asker: d.Asker})}
		},
	}
}

// userConfig is the user's crush.json.
func userConfig(home string, getenv func(string) string) string {
	return ConfigPath(home, getenv("XDG_CONFIG_HOME"), getenv("CRUSH_GLOBAL_CONFIG"))
}
