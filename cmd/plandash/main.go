// Command plandash watches AI agents plan: it ingests ACP traffic, stores it, and shows every
// active plan live in the browser.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/plandash/plandash/internal/agents/registry"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if len(os.Args) > 1 && os.Args[1] == "acp" {
		acpRuntime(os.Getenv) // here, not in acpCmd: tests run acpCmd inside their own process
	}
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	var ec exitCode
	switch {
	case errors.As(err, &ec):
		os.Exit(int(ec))
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "plandash:", err)
		os.Exit(1)
	}
}

// exitCode ends the program with a code and no message (the command has said what it had to).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

var errUsage = errors.New("usage")

// usage is the program's help; the agents' names come from the registry.
func usage() string {
	return strings.NewReplacer("AGENTS_HOOKED", strings.Join(registry.Names(true), "|"),
		"AGENTS", strings.Join(registry.Names(false), "|")).Replace(usageText)
}

const usageText = `plandash: a live dashboard of AI agents' plans.

Usage:
  plandash serve  [flags]          run the dashboard server
  plandash demo   [flags]          run the server with built-in scripted agents; its data (database,
                                   token, plans/, shared-plans/) lives in the data directory's demo/
  plandash ingest [flags] [FILE|-] post a recorded NDJSON ACP transcript (stdin by default)
  plandash url    [flags]          print the dashboard address with its token and the port in use
                                   (--demo: the demo's; --embed: the IDE panel's)
  plandash acp    [flags] -- AGENT [ARGS…]
                                   run AGENT behind a transparent ACP proxy that feeds the dashboard
  plandash mcp    [flags]          serve plandash's MCP tools (shared plans, approval) on stdio
  plandash approval request FILE   submit a plan for approval and wait for the decision
  plandash dag check FILE          validate a tool-call plan and print its dry run
  plandash install AGENTS [--gate]
                                   put plandash's hooks in the agent's settings (--uninstall)
  plandash hook AGENTS_HOOKED
                                   what those hooks run: post one event read on stdin
  plandash plans  list|show|write|status|delete
                                   read and write docker-agent's shared plans
  plandash tokens create|list|revoke
                                   per-agent tokens for agents on other machines
  plandash doctor [--test-event]   check the set-up: server, token, each agent's hooks and CLI
  plandash version

Run 'plandash COMMAND -h' for a command's flags. Data directory: $XDG_DATA_HOME/plandash, else
~/.local/share/plandash (--data changes it).
`

// run is the whole program, with its dependencies as parameters so tests can drive it.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return errUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return serveCmd(ctx, rest, getenv, stdout, stderr, false)
	case "demo":
		return serveCmd(ctx, rest, getenv, stdout, stderr, true)
	case "ingest":
		return ingestCmd(ctx, rest, getenv, stdin, stdout, stderr)
	case "url":
		return urlCmd(rest, getenv, stdout, stderr)
	case "acp":
		return acpCmd(ctx, rest, getenv, stdin, stdout, stderr)
	case "mcp":
		return mcpCmd(ctx, rest, getenv, stdin, stdout, stderr)
	case "approval":
		return approvalCmd(ctx, rest, getenv, stdin, stdout, stderr)
	case "plans":
		return plansCmd(ctx, rest, getenv, stdin, stdout, stderr)
	case "dag":
		return dagCmd(rest, stdin, stdout, stderr)
	case "hook":
		return hookCmd(ctx, rest, getenv, stdin, stdout, stderr)
	case "install":
		return installCmd(rest, getenv, stdout, stderr)
	case "tokens":
		return tokensCmd(ctx, rest, getenv, stdout, stderr)
	case "doctor":
		return doctorCmd(ctx, rest, getenv, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "plandash", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage())
		return nil
	}
	if hint := didYouMean(cmd, commands...); hint != "" {
		fmt.Fprintf(stderr, "plandash: unknown command %q: %s\nRun 'plandash help' for every command.\n", cmd, hint)
		return errUsage
	}
	fmt.Fprintf(stderr, "plandash: unknown command %q\n\n%s", cmd, usage())
	return errUsage
}

// version is set by the build (-ldflags "-X main.version=…").
var version = "dev"
