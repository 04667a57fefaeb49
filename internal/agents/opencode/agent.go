package opencode

import (
	"fmt"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// Agent is OpenCode as the registry lists it. It has no command hooks: install writes a plugin
// that posts its events to the hook route itself, and holds plan_exit at the gate always, so
// --gate changes nothing for it.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: "opencode", Title: "OpenCode", CLI: "opencode", Tested: "1.18.33",
		Install:    install,
		Flags:      []string{agentkit.FlagProject, agentkit.FlagGate},
		GateAlways: true,
		Plugins: func(project string, getenv func(string) string) []string {
			return []string{filepath.Join(PluginDir("", getenv), PluginFile), filepath.Join(PluginDir(project, getenv), PluginFile)}
		},
		Connect:  "plandash install opencode",
		Sessions: databasePath,
		// OpenCode keeps plans of projects without git in its data directory.
		PlanDir: ".local/share/opencode/plans",
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
	return InstallPlugin(dir, PluginOptions{Server: o.Server, TokenFile: tokenFile, Root: o.Project})
}

// databasePath is OpenCode's database: $XDG_DATA_HOME/opencode/opencode.db, else under
// ~/.local/share.
func databasePath(getenv func(string) string) string {
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "opencode", "opencode.db")
	}
	return agentkit.HomeDir(getenv, ".local", "share", "opencode", "opencode.db")
}

// build is the plugin's hook service, the reader of OpenCode's database and the followers of
// OpenCode servers.
func build(d agentkit.Deps) agentkit.Parts {
	p := agentkit.Parts{Hooks: NewHookService(d.Plans, d.Gate, HookConfig{Permissions: true, PlanRoots: d.PlanDirs, Log: d.Log, Asker: d.Asker})}
	if path := d.Sessions; path != "" {
		st := NewStorage(path, d.Plans, "", d.Since, d.Log, d.Now)
		p.Run = append(p.Run, agentkit.Follow(st, d.Log, "opencode: reading the database", "path", path))
	}
	if len(d.Servers) == 0 {
		return p
	}
	user, pass := AuthFromEnv(d.Getenv)
	for _, url := range d.Servers {
		w := NewWatcher(url, d.Plans, d.Gate, Options{Username: user, Password: pass, Questions: true, Permissions: true, Asker: d.Asker,
			PlanRoots: d.PlanDirs, Log: d.Log})
		p.Run = append(p.Run, agentkit.Follow(w, d.Log, "opencode: following the server", "url", url))
	}
	return p
}
