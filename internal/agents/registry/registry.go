// Package registry is the one list of the agents plandash connects to. `plandash hook`,
// `plandash install`, `plandash doctor`, the usage text, the hook route (/api/v1/hooks/NAME) and
// the application's followers all iterate All, so none of them names an agent.
//
// Adding an agent is four steps:
//
//  1. its package, internal/agents/NAME, with its events decoded into plans updates and its
//     tests (fuzz targets for every decoder of the agent's input);
//  2. in that package, a func Agent() agentkit.Agent (claude/agent.go is an example), giving
//     what is listed below;
//  3. one line in All below;
//  4. a row in the README's agent table and in the table at the top of docs/agents.md (with
//     its install flags and tested version), its section there, and its entry in the VS Code
//     extension's list of agents to install (editors/vscode/src/commands.ts, AGENTS).
//
// An Agent gives:
//
//   - Name, the word in commands and the hook route, and Title, what people call it;
//   - CLI and Tested: the command doctor asks `--version` and the version the real-CLI tests
//     run, pinned as NAME_VERSION=… in scripts/agent-clis.sh;
//   - Hook, what `plandash hook NAME` runs (nil without command hooks); Install, writing and
//     removing plandash's hooks or plugin; Flags, the install flags it honours (the others are
//     refused for it), and GateAlways when its install always puts the gate in;
//   - Settings, the JSON files doctor reads for plandash's hook commands, or Plugins, the files
//     whose presence means its plugin is installed; HookEvents when its settings name hooks by
//     event; Connect, the command that connects it fully (doctor suggests it, the empty
//     overview shows it);
//   - Sessions, where it keeps its own session files (`serve` reads them without an install);
//     PlanDir, its plan directory under the home; Build, its hook handler and followers, from
//     the application's shared Deps.
//
// TestEveryAgentEverywhere and TestInstallRefusesWhatIsNotASettingsFile (cmd/plandash) and
// TestEveryAgentHasAHookRoute (internal/app) then run it through every command, doctor, the hook
// route and the empty overview, and fail while a piece is missing.
//
// Cursor is not listed: it is connected through `plandash acp -- agent acp`, whose Cursor
// extensions (cursor/update_todos, cursor/create_plan) internal/acp decodes; it has no hooks to
// install or run.
package registry

import (
	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/amp"
	"github.com/plandash/plandash/internal/agents/claude"
	"github.com/plandash/plandash/internal/agents/cline"
	"github.com/plandash/plandash/internal/agents/codex"
	"github.com/plandash/plandash/internal/agents/copilot"
	"github.com/plandash/plandash/internal/agents/crush"
	"github.com/plandash/plandash/internal/agents/droid"
	"github.com/plandash/plandash/internal/agents/gemini"
	"github.com/plandash/plandash/internal/agents/kilo"
	"github.com/plandash/plandash/internal/agents/opencode"
	"github.com/plandash/plandash/internal/agents/pi"
	"github.com/plandash/plandash/internal/agents/qwen"
)

// All is every agent, in the order commands and docs list them.
func All() []agentkit.Agent {
	return []agentkit.Agent{
		claude.Agent(),
		codex.Agent(),
		gemini.Agent(),
		opencode.Agent(),
		copilot.Agent(),
		droid.Agent(),
		pi.Agent(),
		cline.Agent(),
		qwen.Agent(),
		kilo.Agent(),
		crush.Agent(),
		amp.Agent(),
	}
}

// Lookup is the agent called name.
func Lookup(name string) (agentkit.Agent, bool) {
	for _, a := range All() {
		if a.Name == name {
			return a, true
		}
	}
	return agentkit.Agent{}, false
}

// Names are the agents' names, in All's order; with hooks, only the agents that have command
// hooks (`plandash hook NAME`).
func Names(hooks bool) []string {
	var names []string
	for _, a := range All() {
		if !hooks || a.Hook != nil {
			names = append(names, a.Name)
		}
	}
	return names
}
