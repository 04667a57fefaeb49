package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/registry"
	"github.com/plandash/plandash/internal/client"
)

// hookCmd is `plandash hook AGENT`: what an agent's hooks run. It reads one event on stdin,
// posts it to the dashboard, and prints the hook's answer when there is one (a plan decided at
// the gate). It never fails the agent: whatever goes wrong, it exits 0. A plan at the gate that
// gets no decision is left to the agent's own dialog (never approved by silence), and stderr
// says why.
func hookCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	name := ""
	if len(args) > 0 {
		name = args[0]
	}
	names := registry.Names(true)
	a, ok := registry.Lookup(name)
	if !ok || a.Hook == nil {
		switch {
		case ok:
			fmt.Fprintf(stderr, "plandash hook: %s has no command hooks (`plandash install %s` connects it)\n", a.Title, a.Name)
		case didYouMean(name, names...) != "":
			fmt.Fprintf(stderr, "plandash hook: unknown agent %q: %s\n", name, didYouMean(name, names...))
		}
		fmt.Fprintf(stderr, "usage: plandash hook %s [--server URL] [--token T] [--data DIR]  (reads one hook event on stdin)\n", strings.Join(names, "|"))
		return errUsage
	}
	fs := flag.NewFlagSet("plandash hook "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f client.Flags
	f.Register(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	// No retries: a hook that cannot reach the dashboard at once gets out of the agent's way.
	api := client.Resolve(getenv, f).Client(client.WithTimeout(5*time.Second), client.WithRetry(client.Retry{}))
	host, _ := os.Hostname()
	return a.Hook(ctx, agentkit.HookEnv{Stdin: stdin, Stdout: stdout, Stderr: stderr, Post: hookPoster{api, name}, Host: host, Getenv: getenv})
}

// hookPoster posts an agent's events to the dashboard.
type hookPoster struct {
	api   *client.Client
	agent string
}

func (p hookPoster) Post(ctx context.Context, body []byte, wait bool) ([]byte, error) {
	return p.api.AgentHook(ctx, p.agent, body, wait)
}

// installCmd is `plandash install AGENT`: plandash's hooks merged into the agent's settings.
// A flag the agent does not honour is refused rather than ignored.
func installCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	name := ""
	if len(args) > 0 {
		name = args[0]
	}
	a, ok := registry.Lookup(name)
	if !ok {
		if hint := didYouMean(name, registry.Names(false)...); hint != "" {
			fmt.Fprintf(stderr, "plandash install: unknown agent %q: %s\n", name, hint)
		}
		fmt.Fprintf(stderr, "usage: plandash install %s [--project DIR] [--gate] [--all-tools] [--shared] [--uninstall] [--server URL] [--token T] [--data DIR] [--command PATH]\n",
			strings.Join(registry.Names(false), "|"))
		return errUsage
	}
	fs := flag.NewFlagSet("plandash install "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	project := fs.String(agentkit.FlagProject, "", "install into the project DIR's settings instead of your user settings"+honouredBy(agentkit.FlagProject))
	fs.Bool("user", true, "install into your user settings (the default)")
	gate := fs.Bool(agentkit.FlagGate, false, "also hold plan-mode plans for approval in the dashboard"+honouredBy(agentkit.FlagGate)+gateAlways())
	allTools := fs.Bool(agentkit.FlagAllTools, false, "capture every tool call, not only the tools that carry plans"+honouredBy(agentkit.FlagAllTools))
	uninstall := fs.Bool("uninstall", false, "remove plandash's hooks and nothing else")
	server := fs.String("server", "", "the dashboard the hooks report to (default: $PLANDASH_SERVER when the hook runs, else the local one)")
	data := fs.String("data", "", "the dashboard's data directory, for its token (default: the local one)")
	tok := fs.String(agentkit.FlagToken, "", "the dashboard's token, written into the hook command (so stored in the settings file in clear); default: $PLANDASH_TOKEN when the hook runs, else the token in --data"+honouredBy(agentkit.FlagToken))
	shared := fs.Bool(agentkit.FlagShared, false, "with --project: write the settings file a repository commits (claude: .claude/settings.json) instead of your own local one"+honouredBy(agentkit.FlagShared))
	command := fs.String(agentkit.FlagCommand, "", "the plandash binary the hooks run (default: this one, unless it is a temporary `go run` build)"+honouredBy(agentkit.FlagCommand))
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	var refused []string
	fs.Visit(func(f *flag.Flag) {
		switch {
		case a.Honours(f.Name):
		case f.Name == agentkit.FlagCommand && a.Hook == nil:
			// Said, not refused: the VS Code extension passes the binary it is set up with
			// for every agent, and a plugin runs no plandash command to name.
			fmt.Fprintf(stderr, "plandash install %s: --command is not used: %s runs no plandash hook command\n", name, a.Title)
		default:
			refused = append(refused, "--"+f.Name)
		}
	})
	if len(refused) > 0 {
		fmt.Fprintf(stderr, "plandash install %s: %s: not taken for %s (%s takes %s)\n", name, strings.Join(refused, ", "), a.Title, name, honoured(a))
		return errUsage
	}
	exe := ""
	var err error
	if a.Hook != nil && !*uninstall {
		if exe, err = hookCommand(*command, getenv, stderr); err != nil {
			return err
		}
	}
	// The project's absolute path confines a project install to the project: no "..", no
	// symlink (a config directory linked to the user's own) may take plandash's hooks or policy
	// out of it.
	root := ""
	if *project != "" {
		if root, err = filepath.Abs(*project); err != nil {
			return err
		}
	}
	rep, err := a.Install(agentkit.InstallOptions{
		Home: getenv("HOME"), Project: root, Shared: *shared, Gate: *gate, AllTools: *allTools, Uninstall: *uninstall,
		Server: *server, Data: *data, Token: *tok, Command: exe, Getenv: getenv, Stderr: stderr,
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, rep.String())
	if !*uninstall {
		// The hooks stay silent when they cannot report (they must never hold the agent up):
		// say now whether they can.
		hookFlags := client.Flags{Server: *server, DataDir: *data}
		if a.Honours(agentkit.FlagToken) {
			hookFlags.Token = *tok // only then does the hook command carry --token
		}
		r := checkReach(context.Background(), client.Resolve(getenv, hookFlags), getenv)
		fmt.Fprintln(stdout, r.Line)
	}
	return nil
}

// honouredBy is " (claude, gemini)": the agents that honour the install flag, for its help.
func honouredBy(flag string) string {
	var names []string
	for _, a := range registry.All() {
		if a.Honours(flag) {
			names = append(names, a.Name)
		}
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// honoured lists the optional install flags agent a takes: "--project, --gate".
func honoured(a agentkit.Agent) string {
	if len(a.Flags) == 0 {
		return "none beyond --uninstall, --server and --data"
	}
	return "--" + strings.Join(a.Flags, ", --")
}

// gateAlways is "; always for codex, opencode": the agents whose install always puts the gate in.
func gateAlways() string {
	var names []string
	for _, a := range registry.All() {
		if a.GateAlways {
			names = append(names, a.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "; always for " + strings.Join(names, ", ")
}
