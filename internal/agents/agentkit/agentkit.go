// Package agentkit describes one agent to the rest of plandash: the word in its commands and hook
// route, its CLI, how `plandash hook` and `plandash install` run for it, what doctor reads, and how
// the application builds its hook handler and the followers of its own files. Each agent's package
// exports an Agent; the registry lists them, and the CLI, the usage text, the hook route, install,
// doctor and the application iterate that list instead of naming agents.
//
// It is a leaf of the agents' rooms: agent packages import it, it imports none of them.
package agentkit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/waits"
)

// Agent is one agent plandash connects to. Name and Title are required; a nil func means the
// agent has no such part (OpenCode has no command hooks: its plugin posts its events itself).
type Agent struct {
	// Name is the word in `plandash hook NAME`, `plandash install NAME` and
	// /api/v1/hooks/NAME: lower case, no spaces, never changed once released (installed hooks
	// name it).
	Name string
	// Title is how people call the agent: "Claude Code".
	Title string
	// CLI is the agent's command (doctor runs `CLI --version`); "" when it has none to check.
	CLI string
	// Tested is the CLI version the real-CLI tests run; scripts/agent-clis.sh pins the same
	// as NAME_VERSION=… and a test keeps the two equal.
	Tested string

	// Hook runs `plandash hook NAME`: one event read on env.Stdin, posted through env.Post, the
	// agent's answer printed on env.Stdout. It never fails the agent for plandash's sake. Nil:
	// the agent has no command hooks, and install writes no hook command.
	Hook func(ctx context.Context, env HookEnv) error
	// Install writes plandash's hooks (or plugin) into the agent's settings, or takes them away
	// with opts.Uninstall, and reports what changed.
	Install func(opts InstallOptions) (fmt.Stringer, error)
	// Flags are the install flags the agent honours beyond the ones every agent takes
	// (--uninstall, --server, --data, --user): FlagProject, FlagGate, … install refuses the others.
	Flags []string
	// GateAlways says install always puts in the gate (Codex's Stop hook, OpenCode's plugin):
	// --gate is taken and changes nothing.
	GateAlways bool

	// Settings are the JSON files doctor reads for plandash's hook commands: the user's (under home)
	// and the project's (under project, an absolute directory). Nil for an agent without
	// command hooks.
	Settings func(home, project string, getenv func(string) string) []string
	// HookEvents are the events install hooks, for doctor to name those an older install
	// missed; nil skips that check. Only for settings that name hooks by event
	// ({"hooks": {"Event": [{"hooks": [{"command": …}]}]}}).
	HookEvents func() []string
	// Plugins are the files whose presence means plandash is installed, for an agent whose
	// install writes files of its own (a plugin, Cline's hook scripts) rather than hook commands
	// in a JSON settings file; nil otherwise.
	Plugins func(project string, getenv func(string) string) []string
	// Connect is the command that connects the agent fully ("plandash install claude --gate"):
	// doctor suggests it when nothing is installed, and the empty overview shows it.
	Connect string

	// Sessions is where the agent keeps its own session files by default, which `plandash
	// serve` reads without any install; nil or "" when there is nothing to read.
	Sessions func(getenv func(string) string) string
	// PlanDir is the agent's own plan directory under the server user's home, slash-separated
	// (".claude/plans"), from which plan files its events name may be read; "" for none.
	PlanDir string
	// Build makes the agent's part of the running application from what it shares with the
	// others: its hook handler and the followers of its own files. Nil builds nothing.
	Build func(deps Deps) Parts
}

// The install flags an agent may honour (Agent.Flags). Every agent takes --uninstall, --server,
// --data and --user.
const (
	FlagProject  = "project"   // install into a project's settings
	FlagGate     = "gate"      // hold plan-mode plans at the gate
	FlagAllTools = "all-tools" // capture every tool call
	FlagShared   = "shared"    // with --project, the settings file a repository commits
	FlagToken    = "token"     // write the token into the hook command
	FlagCommand  = "command"   // the plandash binary the hooks run
)

// Honours says whether the agent takes the install flag name.
func (a Agent) Honours(name string) bool {
	switch name {
	case "uninstall", "server", "data", "user":
		return true
	}
	for _, f := range a.Flags {
		if f == name {
			return true
		}
	}
	return false
}

// HookEnv is what `plandash hook NAME` hands the agent's Hook.
type HookEnv struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Post           hookkit.Poster // posts the event to the dashboard's hook route
	Host           string         // this machine's name, for sessions on other machines
	Getenv         func(string) string
}

// InstallOptions are `plandash install NAME`'s flags, parsed and checked against Agent.Flags.
type InstallOptions struct {
	Home      string // the user's home directory (user settings live under it)
	Project   string // the project's absolute directory with --project; "" installs for the user
	Shared    bool   // --shared
	Gate      bool   // --gate
	AllTools  bool   // --all-tools
	Uninstall bool   // --uninstall: take plandash's hooks away and nothing else
	Server    string // --server: where the hooks report; "" lets them resolve it when they run
	Data      string // --data: the dashboard's data directory, for its token
	Token     string // --token, written into the hook command
	Command   string // the plandash binary the hooks run (resolved; "" for agents without Hook)
	Getenv    func(string) string
	Stderr    io.Writer // warnings that do not stop the install
}

// Deps is what the application shares with every agent it builds.
type Deps struct {
	Plans *plans.Service
	Gate  *approval.Gate
	Asker waits.Asker // agents' questions and sessions waiting for their next prompt
	// PlanDirs are the directories plan files this agent's events name may be read from: the
	// allowed roots and Agent.PlanDir under the server user's home.
	PlanDirs files.PlanDirs
	Log      *slog.Logger
	Now      func() time.Time
	DataDir  string        // where followers keep how far they read
	Since    time.Duration // how far back the agent's own files are first read; 0: each follower's default
	// Sessions is where to read the agent's own session files; "" reads none (discovery is off,
	// or the agent keeps none).
	Sessions string
	// Servers are the agent's servers to follow (OpenCode's --opencode URLs).
	Servers []string
	Getenv  func(string) string
}

// Parts is an agent's part of the running application.
type Parts struct {
	// Hooks handles the events posted to /api/v1/hooks/NAME; nil: the agent has no hook route.
	Hooks Handler
	// Run are the followers of the agent's own files and servers, run beside the server until
	// their context ends.
	Run []func(ctx context.Context)
}

// Handler handles one agent's hook event and returns what the hook prints (web.AgentHooks).
type Handler interface {
	Handle(ctx context.Context, body []byte) ([]byte, error)
}

// Runner is a follower that stops with an error.
type Runner interface {
	Run(ctx context.Context) error
}

// Follow is r as a Parts.Run func that logs why it stopped, unless its context ended.
func Follow(r Runner, log *slog.Logger, what string, args ...any) func(context.Context) {
	return func(ctx context.Context) {
		if err := r.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error(what+" stopped", append(args, "err", err)...)
		}
	}
}

// HomeDir is a directory under getenv's $HOME; "" without a HOME.
func HomeDir(getenv func(string) string, elem ...string) string {
	home := getenv("HOME")
	if home == "" {
		return ""
	}
	return filepath.Join(append([]string{home}, elem...)...)
}

// TokenFile is the dashboard's token file for a plugin to read when it posts: the one in --data
// (made absolute: the plugin runs elsewhere), else in the local dashboard's data directory.
func (o InstallOptions) TokenFile() (string, error) {
	t := client.Resolve(o.Getenv, client.Flags{DataDir: o.Data})
	if o.Data != "" {
		abs, err := filepath.Abs(o.Data)
		if err != nil {
			return "", err
		}
		t.DataDir = abs
	}
	return client.TokenFile(t.DataDir), nil
}
