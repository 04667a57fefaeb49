// Package kilo is plandash's adapter for Kilo Code's CLI (`kilo`, npm @kilocode/cli), an
// OpenCode fork with OpenCode's bus events, plugin system and storage. It is internal/agents/
// opencode with Kilo's Flavor: plandash's plugin, installed into Kilo's plugins directory,
// posts Kilo's events to POST /api/v1/hooks/kilo; todo lists become the session's checklist,
// and the "Ready to implement?" question Kilo asks after plan_exit is held at the gate.
package kilo

import (
	"log/slog"
	"path/filepath"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/opencode"
)

// AgentName and AgentTitle name Kilo in sessions and at the gate.
const (
	AgentName  = "kilo"
	AgentTitle = "Kilo Code"
)

// SessionPrefix starts every plandash session id that comes from Kilo.
const SessionPrefix = "kilo:"

// SessionKey is the plandash session id of a Kilo session.
func sessionKey(id string) string { return SessionPrefix + id }

// The plan hand-off: after a plan_exit call, Kilo's CLI ends the turn and asks "Ready to
// implement?" with these answers (KiloSessionPrompt.askPlanFollowup in Kilo 7.7.7); any other
// answer is sent to the plan agent as the person's message.
const (
	PlanQuestion       = "Ready to implement?"
	AnswerContinue     = "Continue here"     // implement in this session, with the code agent
	AnswerNewSession   = "Start new session" // implement in a fresh session
	AnswerKeepRefining = "Keep refining"     // keep planning
)

// Flavor is Kilo for the opencode package.
var Flavor = opencode.Flavor{
	Name: AgentName, Title: AgentTitle, Prefix: SessionPrefix, Hook: "kilo",
	PlanExit: PlanExit,
	PlanAnswer: func(approved bool, reason string) string {
		switch {
		case approved:
			return AnswerContinue
		case reason != "":
			return reason
		}
		return AnswerKeepRefining
	},
	PlanChoices: "- **Approve** answers \"Continue here\": Kilo switches to its code agent and implements the plan in this session.\n" +
		"- **Reject** sends your reason to the plan agent, which keeps planning (\"Keep refining\" when you give none).\n\n",
}

// PlanExit recognises Kilo's plan hand-off question. It names no plan file: plandash's plugin
// sends the one the session's plan_exit call reported.
func PlanExit(q opencode.QuestionAsked) (string, bool) {
	return "", len(q.Questions) == 1 && q.Questions[0].Question == PlanQuestion
}

// NewHookService makes the service behind POST /api/v1/hooks/kilo: OpenCode's, for Kilo.
func NewHookService(apply opencode.Applier, gate opencode.Gate, cfg opencode.HookConfig) *opencode.HookService {
	cfg.Flavor = &Flavor
	return opencode.NewHookService(apply, gate, cfg)
}

// PluginDir is where Kilo loads plugin files from: the project's .kilo/plugins when project is
// set, else the user's ($XDG_CONFIG_HOME/kilo/plugins, by default ~/.config/kilo/plugins; see
// `kilo debug paths`). Kilo globs "{plugin,plugins}/*.{ts,js}" in each of its config
// directories, as OpenCode does.
func PluginDir(project string, getenv func(string) string) string {
	if project != "" {
		return filepath.Join(project, ".kilo", "plugins")
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "kilo", "plugins")
	}
	return filepath.Join(getenv("HOME"), ".config", "kilo", "plugins")
}

// InstallPlugin writes plandash's plugin, set up for Kilo, into dir (see
// opencode.InstallPlugin).
func InstallPlugin(dir string, opts opencode.PluginOptions) (opencode.InstallReport, error) {
	opts.Hook, opts.PlanQuestion = Flavor.Hook, PlanQuestion
	return opencode.InstallPlugin(dir, opts)
}

// UninstallPlugin removes plandash's plugin file from dir, and nothing else.
func UninstallPlugin(dir, root string) (opencode.InstallReport, error) {
	return opencode.UninstallPlugin(dir, root)
}

// StoragePath is Kilo's database: $XDG_DATA_HOME/kilo/kilo.db, by default
// ~/.local/share/kilo/kilo.db (`kilo debug paths`), with OpenCode's session and todo tables;
// "" without a HOME.
func StoragePath(getenv func(string) string) string {
	if x := getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "kilo", "kilo.db")
	}
	return agentkit.HomeDir(getenv, ".local", "share", "kilo", "kilo.db")
}

// NewStorage follows Kilo's database read-only, as opencode.Storage follows OpenCode's: the
// sessions changed in the last since (7 days when zero), their todo lists and what they cost,
// without the plugin.
func NewStorage(path string, apply opencode.Applier, host string, since time.Duration, log *slog.Logger, now func() time.Time) *opencode.Storage {
	return opencode.NewStorageFor(&Flavor, path, apply, host, since, log, now)
}
