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
	"github.com/plandash/plandash/internal/client"
)

// hookCmd is `plandash hook AGENT`: what an agent's hooks run. It reads one event on stdin,
// posts it to the dashboard, and prints the hook's answer when there is one (a plan decided at
// the gate). It never fails the agent: whatever goes wrong, it exits 0 and prints nothing.
func hookCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "claude" {
		fmt.Fprintln(stderr, "usage: plandash hook claude [--server URL] [--token T] [--data DIR]  (reads a Claude Code hook event on stdin)")
		return errUsage
	}
	fs := flag.NewFlagSet("plandash hook claude", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f client.Flags
	f.Register(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	// No retries: a hook that cannot reach the dashboard at once gets out of the agent's way.
	api := client.Resolve(getenv, f).Client(client.WithTimeout(5*time.Second), client.WithRetry(client.Retry{}))
	host, _ := os.Hostname()
	return claude.RunHook(ctx, stdin, stdout, hookPoster{api}, claude.HookOptions{Host: host})
}

// hookPoster posts Claude Code's events to the dashboard.
type hookPoster struct{ api *client.Client }

func (p hookPoster) Post(ctx context.Context, body []byte, wait bool) ([]byte, error) {
	return p.api.AgentHook(ctx, "claude", body, wait)
}

// installCmd is `plandash install claude`: plandash's hooks merged into Claude Code's settings.
func installCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "claude" {
		fmt.Fprintln(stderr, "usage: plandash install claude [--user | --project DIR] [--gate] [--all-tools] [--uninstall] [--server URL] [--token T] [--data DIR]")
		return errUsage
	}
	fs := flag.NewFlagSet("plandash install claude", flag.ContinueOnError)
	fs.SetOutput(stderr)
	project := fs.String("project", "", "install into DIR/.claude/settings.json (the project's settings) instead of your user settings")
	fs.Bool("user", true, "install into ~/.claude/settings.json (the default)")
	gate := fs.Bool("gate", false, "also hold plan-mode plans (ExitPlanMode) for approval in the dashboard; the terminal's own dialog stays live, and the first answer wins")
	allTools := fs.Bool("all-tools", false, "capture every tool call, not only the tools that carry plans")
	uninstall := fs.Bool("uninstall", false, "remove plandash's hooks and nothing else")
	server := fs.String("server", "", "the dashboard the hooks report to (default: $PLANDASH_SERVER when the hook runs, else the local one)")
	data := fs.String("data", "", "the dashboard's data directory, for its token (default: the local one)")
	tok := fs.String("token", "", "the dashboard's token, written into the hook command (so stored in the settings file in clear); default: $PLANDASH_TOKEN when the hook runs, else the token in --data")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	path := filepath.Join(getenv("HOME"), ".claude", "settings.json")
	if *project != "" {
		abs, err := filepath.Abs(*project)
		if err != nil {
			return err
		}
		path = filepath.Join(abs, ".claude", "settings.json")
	}
	var (
		rep claude.Report
		err error
	)
	if *uninstall {
		rep, err = claude.Uninstall(path)
	} else {
		exe, xerr := os.Executable()
		if xerr != nil {
			exe = "plandash"
		}
		rep, err = claude.Install(path, claude.InstallOptions{Command: exe, Server: *server, Data: *data, Token: *tok, Gate: *gate, AllTools: *allTools})
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, rep.String())
	return nil
}
