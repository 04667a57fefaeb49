package registry

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/agentkit"
)

// name is what an agent's Name may be: it is a word in commands, hook commands written into
// people's settings, and a URL path segment.
var name = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// Every agent describes itself whole: a name unique and fit for commands and routes, a title,
// its CLI with the version tested, a way to install and a way for doctor to find what install
// wrote, and its part of the application.
func TestAgentsAreWhole(t *testing.T) {
	all := All()
	if len(all) == 0 {
		t.Fatal("no agents")
	}
	known := []string{agentkit.FlagProject, agentkit.FlagGate, agentkit.FlagAllTools, agentkit.FlagShared, agentkit.FlagToken, agentkit.FlagCommand}
	seen := map[string]bool{}
	for _, a := range all {
		if !name.MatchString(a.Name) {
			t.Errorf("agent %q: the name is not one lower-case word", a.Name)
		}
		if seen[a.Name] {
			t.Errorf("agent %q is listed twice", a.Name)
		}
		seen[a.Name] = true
		if a.Title == "" || !strings.HasPrefix(a.Connect, "plandash install "+a.Name) {
			t.Errorf("%s: no Title, or Connect (%q) is not its install", a.Name, a.Connect)
		}
		if (a.CLI == "") != (a.Tested == "") {
			t.Errorf("%s: CLI %q with tested version %q: give both or neither", a.Name, a.CLI, a.Tested)
		}
		if a.Install == nil || a.Build == nil {
			t.Errorf("%s: no Install or no Build", a.Name)
		}
		if (a.Settings == nil) == (a.Plugins == nil) {
			t.Errorf("%s: doctor needs Settings (hook commands) or Plugins, one of them", a.Name)
		}
		if a.Settings != nil && a.Hook == nil {
			t.Errorf("%s: settings doctor reads for hook commands, but no command hooks", a.Name)
		}
		if (a.Hook != nil) != a.Honours(agentkit.FlagCommand) {
			t.Errorf("%s: --command names the binary hook commands run: honoured exactly when there is a Hook", a.Name)
		}
		for _, f := range a.Flags {
			if !slices.Contains(known, f) {
				t.Errorf("%s: unknown install flag %q", a.Name, f)
			}
		}
		if got, ok := Lookup(a.Name); !ok || got.Name != a.Name {
			t.Errorf("Lookup(%q) = %q, %v", a.Name, got.Name, ok)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup found an agent that is not listed")
	}
	if len(Names(true)) == 0 || len(Names(false)) != len(all) {
		t.Errorf("Names: %v with hooks, %v in all", Names(true), Names(false))
	}
}

// Each agent's parts build from bare dependencies, with no session files to read: a hook
// handler for every agent (the route takes the plugin's posts too), and no follower.
func TestAgentsBuild(t *testing.T) {
	for _, a := range All() {
		p := a.Build(agentkit.Deps{})
		if p.Hooks == nil {
			t.Errorf("%s: no hook handler", a.Name)
		}
		if len(p.Run) != 0 {
			t.Errorf("%s: %d followers with nothing to follow", a.Name, len(p.Run))
		}
	}
}
