package pi

import (
	"fmt"
	"path/filepath"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// Agent is Pi as the registry lists it. It has no command hooks: install writes an extension
// that posts its events to the hook route itself, and gives the model submit_plan, which is
// always held at the gate, so --gate changes nothing for it.
func Agent() agentkit.Agent {
	return agentkit.Agent{
		Name: "pi", Title: "Pi", CLI: "pi", Tested: "0.73.1",
		Install:    install,
		Flags:      []string{agentkit.FlagProject, agentkit.FlagGate},
		GateAlways: true,
		Plugins: func(project string, getenv func(string) string) []string {
			return []string{filepath.Join(ExtensionDir("", getenv), ExtensionFile), filepath.Join(ExtensionDir(project, getenv), ExtensionFile)}
		},
		Connect:  "plandash install pi",
		Sessions: SessionsDir,
		Build:    build,
	}
}

// install writes (or removes) plandash's extension, with the server and the token file baked in.
func install(o agentkit.InstallOptions) (fmt.Stringer, error) {
	dir := ExtensionDir(o.Project, o.Getenv)
	if o.Uninstall {
		return Uninstall(dir, o.Project)
	}
	tokenFile, err := o.TokenFile()
	if err != nil {
		return nil, err
	}
	return Install(dir, Options{Server: o.Server, TokenFile: tokenFile, Root: o.Project})
}

// build is one Pi service for the extension's events and Pi's session files, and the follower
// of those files.
func build(d agentkit.Deps) agentkit.Parts {
	svc := NewService(d.Plans, d.Gate, Config{Asker: d.Asker, Log: d.Log})
	p := agentkit.Parts{Hooks: svc}
	if dir := d.Sessions; dir != "" {
		disc := svc.NewDiscoverer(dir, DiscoverOptions{StateDir: d.DataDir, Since: d.Since, Log: d.Log, Now: d.Now})
		p.Run = append(p.Run, agentkit.Follow(disc, d.Log, "pi: following sessions", "dir", dir))
	}
	return p
}
