package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/plandash/plandash/internal/agents/claude"
	"github.com/plandash/plandash/internal/agents/codex"
	"github.com/plandash/plandash/internal/agents/gemini"
	"github.com/plandash/plandash/internal/agents/opencode"
	"github.com/plandash/plandash/internal/client"
)

// hookCmd is `plandash hook AGENT`: what an agent's hooks run. It reads one event on stdin,
// posts it to the dashboard, and prints the hook's answer when there is one (a plan decided at
// the gate). It never fails the agent: whatever goes wrong, it exits 0. A plan at the gate that
// gets no decision is left to the agent's own dialog (never approved by silence), and stderr
// says why.
func hookCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	agent := ""
	if len(args) > 0 {
		agent = args[0]
	}
	if agent != "claude" && agent != "codex" && agent != "gemini" {
		if hint := didYouMean(agent, "claude", "codex", "gemini"); hint != "" {
			fmt.Fprintf(stderr, "plandash hook: unknown agent %q: %s\n", agent, hint)
		}
		fmt.Fprintln(stderr, "usage: plandash hook claude|codex|gemini [--server URL] [--token T] [--data DIR]  (reads one hook event on stdin)")
		return errUsage
	}
	fs := flag.NewFlagSet("plandash hook "+agent, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f client.Flags
	f.Register(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	// No retries: a hook that cannot reach the dashboard at once gets out of the agent's way.
	api := client.Resolve(getenv, f).Client(client.WithTimeout(5*time.Second), client.WithRetry(client.Retry{}))
	post := hookPoster{api, agent}
	host, _ := os.Hostname()
	switch agent {
	case "codex":
		return codex.RunHook(ctx, stdin, stdout, post, codex.HookOptions{Host: host, Stderr: stderr})
	case "gemini":
		return gemini.RunHook(ctx, stdin, stdout, post, gemini.HookOptions{Host: host, PlansDir: getenv("GEMINI_PLANS_DIR"), Stderr: stderr})
	}
	return claude.RunHook(ctx, stdin, stdout, post, claude.HookOptions{Host: host, Stderr: stderr})
}

// hookPoster posts an agent's events to the dashboard.
type hookPoster struct {
	api   *client.Client
	agent string
}

func (p hookPoster) Post(ctx context.Context, body []byte, wait bool) ([]byte, error) {
	return p.api.AgentHook(ctx, p.agent, body, wait)
}

// reporter is what every agent's install reports.
type reporter interface{ String() string }

// installCmd is `plandash install AGENT`: plandash's hooks merged into the agent's settings.
func installCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	agent := ""
	if len(args) > 0 {
		agent = args[0]
	}
	if agent != "claude" && agent != "codex" && agent != "gemini" && agent != "opencode" {
		if hint := didYouMean(agent, "claude", "codex", "gemini", "opencode"); hint != "" {
			fmt.Fprintf(stderr, "plandash install: unknown agent %q: %s\n", agent, hint)
		}
		fmt.Fprintln(stderr, "usage: plandash install claude|codex|gemini|opencode [--project DIR] [--gate] [--all-tools] [--uninstall] [--server URL] [--token T] [--data DIR] [--command PATH]")
		return errUsage
	}
	fs := flag.NewFlagSet("plandash install "+agent, flag.ContinueOnError)
	fs.SetOutput(stderr)
	project := fs.String("project", "", "install into the project DIR's settings instead of your user settings (claude, gemini, opencode)")
	fs.Bool("user", true, "install into your user settings (the default)")
	gate := fs.Bool("gate", false, "also hold plan-mode plans for approval in the dashboard (codex: always, through its Stop hook)")
	allTools := fs.Bool("all-tools", false, "capture every tool call, not only the tools that carry plans (claude)")
	uninstall := fs.Bool("uninstall", false, "remove plandash's hooks and nothing else")
	server := fs.String("server", "", "the dashboard the hooks report to (default: $PLANDASH_SERVER when the hook runs, else the local one)")
	data := fs.String("data", "", "the dashboard's data directory, for its token (default: the local one)")
	tok := fs.String("token", "", "the dashboard's token, written into the hook command (so stored in the settings file in clear); default: $PLANDASH_TOKEN when the hook runs, else the token in --data")
	shared := fs.Bool("shared", false, "with --project: write the team-shared settings file a repository commits (claude: .claude/settings.json) instead of your own local one (.claude/settings.local.json)")
	command := fs.String("command", "", "the plandash binary the hooks run (default: this one, unless it is a temporary `go run` build)")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	exe := ""
	var err error
	if agent != "opencode" && !*uninstall {
		if exe, err = hookCommand(*command, getenv, stderr); err != nil {
			return err
		}
	}
	base := filepath.Join(getenv("HOME"), "."+agent)
	// root confines a project install to the project: no "..", no symlink (a config directory
	// linked to the user's own) may take plandash's hooks or policy out of it.
	root := ""
	if *project != "" {
		if root, err = filepath.Abs(*project); err != nil {
			return err
		}
		base = filepath.Join(root, "."+agent)
	}
	var rep reporter
	switch agent {
	case "claude":
		path := claudeSettings(base, *project != "", *shared, stderr)
		if *uninstall {
			rep, err = claude.Uninstall(path, root)
		} else {
			rep, err = claude.Install(path, claude.InstallOptions{Command: exe, Server: *server, Data: *data, Token: *tok, Gate: *gate, AllTools: *allTools, Root: root})
		}
	case "gemini":
		path := filepath.Join(base, "settings.json")
		if *uninstall {
			rep, err = gemini.Uninstall(path, "", root)
		} else {
			rep, err = gemini.Install(path, gemini.InstallOptions{Command: exe, Server: *server, Data: *data, Gate: *gate, Root: root})
		}
	case "opencode":
		rep, err = installOpenCode(*project, *uninstall, *server, *data, getenv)
	case "codex":
		if home := getenv("CODEX_HOME"); home != "" && *project == "" {
			base = home
		}
		path := filepath.Join(base, "hooks.json")
		if *uninstall {
			rep, err = codex.Uninstall(path, root)
		} else {
			rep, err = codex.Install(path, codex.InstallOptions{Command: exe, Server: *server, Data: *data, Root: root})
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, rep.String())
	if !*uninstall {
		// The hooks stay silent when they cannot report (they must never hold the agent up):
		// say now whether they can.
		hookFlags := client.Flags{Server: *server, DataDir: *data}
		if agent == "claude" {
			hookFlags.Token = *tok // only Claude Code's hook command carries --token
		}
		r := checkReach(context.Background(), client.Resolve(getenv, hookFlags), getenv)
		fmt.Fprintln(stdout, r.Line)
	}
	return nil
}

// installOpenCode writes (or removes) plandash's OpenCode plugin: OpenCode has no command hooks,
// so the plugin posts its events itself, with the server and token file baked in.
func installOpenCode(project string, uninstall bool, server, data string, getenv func(string) string) (reporter, error) {
	if project != "" {
		abs, err := filepath.Abs(project)
		if err != nil {
			return nil, err
		}
		project = abs
	}
	dir := opencode.PluginDir(project, getenv)
	if uninstall {
		return opencode.UninstallPlugin(dir, project)
	}
	t := client.Resolve(getenv, client.Flags{DataDir: data})
	if data != "" {
		abs, err := filepath.Abs(data)
		if err != nil {
			return nil, err
		}
		t.DataDir = abs
	}
	return opencode.InstallPlugin(dir, opencode.PluginOptions{Server: server, TokenFile: client.TokenFile(t.DataDir), Root: project})
}
