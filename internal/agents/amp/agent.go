package amp

import (
	"fmt"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// Agent is Amp as the registry lists it. It has no command hooks: install writes a plugin that
// posts its events to the hook route itself.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: "amp", Title: "Amp", CLI: "amp", Tested: "0.0.1790142911-g7618fb",
		Install: install,
		Flags:   []string{agentkit.FlagProject, agentkit.FlagGate},
		Plugins: func(project string, getenv func(string) string) []string {
			return []string{filepath.Join(PluginDir("", getenv), PluginFile), filepath.Join(PluginDir(project, getenv), PluginFile)}
		},
		Connect: "plandash install amp --gate",
		Build: func(d agentkit.Deps) agentkit.Parts {
			return agentkit.Parts{Hooks: NewService(d.Plans, d.Gate, Config{Log: d.Log, Asker: d.Asker})}
		},
	}
}

// install writes (or removes) plandash's plugin, with the server and the token file baked in.
func install(o agentkit.InstallOptions) (fmt.Stringer, error) {
	dir := PluginDir(o.Project, o.Getenv)
	if o.Uninstall {
		return Uninstall(dir, o.Project)
	}
	tokenFile, err := o.TokenFile()
	if err != nil {
		return nil, err
	}
	return Install(dir, PluginOptions{Server: o.Server, TokenFile: tokenFile, Gate: o.Gate, Root: o.Project})
}
