package kilo

import (
	"fmt"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/opencode"
)

// Agent is Kilo Code's CLI as the registry lists it. Like OpenCode it has no command hooks:
// install writes the plugin, which posts Kilo's events to the hook route itself and always
// holds the plan hand-off at the gate, so --gate changes nothing for it.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: "kilo", Title: AgentTitle, CLI: "kilo", Tested: "7.7.7",
		Install:    install,
		Flags:      []string{agentkit.FlagProject, agentkit.FlagGate},
		GateAlways: true,
		Plugins: func(project string, getenv func(string) string) []string {
			return []string{filepath.Join(PluginDir("", getenv), opencode.PluginFile), filepath.Join(PluginDir(project, getenv), opencode.PluginFile)}
		},
		Connect:  "plandash install kilo",
		Sessions: StoragePath,
		// Kilo, like OpenCode, keeps plans of projects without git in its data directory.
		PlanDir: ".local/share/kilo/plans",
		Build:   build,
	}
}

// install writes (or removes) plandash's plugin, with the server and the token file baked in.
func install(o agentkit.InstallOptions) (fmt.Stringer, error) {
	dir := PluginDir(o.Project, o.Getenv)
	if o.Uninstall {
		return UninstallPlugin(dir, o.Project)
	}
	tokenFile, err := o.TokenFile()
	if err != nil {
		return nil, err
	}
	return InstallPlugin(dir, opencode.PluginOptions{Server: o.Server, TokenFile: tokenFile, Root: o.Project})
}

// build is the plugin's hook service and the reader of Kilo's database.
func build(d agentkit.Deps) agentkit.Parts {
	p := agentkit.Parts{Hooks: NewHookService(d.Plans, d.Gate, opencode.HookConfig{Permissions: true, PlanRoots: d.PlanDirs, Log: d.Log, Asker: d.Asker})}
	if path := d.Sessions; path != "" {
		st := NewStorage(path, d.Plans, "", d.Since, d.Log, d.Now)
		p.Run = append(p.Run, agentkit.Follow(st, d.Log, "kilo: reading the database", "path", path))
	}
	return p
}
