package copilot

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// Agent is GitHub Copilot CLI as the registry lists it. Its hooks go into the user's settings
// only: a repository's .github/hooks also govern Copilot's cloud agent.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: "copilot", Title: AgentTitle, CLI: "copilot", Tested: "1.0.102",
		Hook: func(ctx context.Context, env agentkit.HookEnv) error {
			return RunHook(ctx, env.Stdin, env.Stdout, env.Post, HookOptions{Event: env.Getenv(EnvEvent),
				NoGate: env.Getenv(EnvNoGate) == "1", Host: env.Host, CopilotHome: home(env.Getenv), Stderr: env.Stderr})
		},
		Install: func(o agentkit.InstallOptions) (fmt.Stringer, error) {
			path := SettingsPath(o.Home, o.Getenv("COPILOT_HOME"))
			if o.Uninstall {
				return Uninstall(path, "")
			}
			return Install(path, InstallOptions{Command: o.Command, Server: o.Server, Data: o.Data, Gate: o.Gate})
		},
		Flags: []string{agentkit.FlagGate, agentkit.FlagCommand},
		Settings: func(home, _ string, getenv func(string) string) []string {
			return []string{SettingsPath(home, getenv("COPILOT_HOME"))}
		},
		HookEvents: HookEventNames,
		Connect:    "plandash install copilot --gate",
		Sessions: func(getenv func(string) string) string {
			if h := home(getenv); h != "" {
				return filepath.Join(h, "session-state")
			}
			return ""
		},
		Build: build,
	}
}

// home is Copilot CLI's directory: $COPILOT_HOME, else ~/.copilot.
func home(getenv func(string) string) string {
	if h := getenv("COPILOT_HOME"); h != "" {
		return h
	}
	return agentkit.HomeDir(getenv, ".copilot")
}

// build is one Copilot CLI service for hooks and session logs, and the follower of those logs.
func build(d agentkit.Deps) agentkit.Parts {
	svc := NewService(d.Plans, d.Gate, Config{Log: d.Log, Asker: d.Asker})
	p := agentkit.Parts{Hooks: svc}
	if dir := d.Sessions; dir != "" {
		disc := svc.NewDiscoverer(dir, DiscoverOptions{StateDir: d.DataDir, Since: d.Since, Log: d.Log, Now: d.Now})
		p.Run = append(p.Run, agentkit.Follow(disc, d.Log, "copilot: following session logs", "dir", dir))
	}
	return p
}
