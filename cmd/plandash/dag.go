package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/plandash/plandash/internal/dag"
)

// dagCmd checks a tool-call plan: `plandash dag check FILE` prints its problems and a dry run
// (order, parallel levels, critical path, final state keys) and exits 1 when it has problems.
func dagCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(stderr, "usage: plandash dag check [--json] FILE|-")
		return errUsage
	}
	fs := flag.NewFlagSet("plandash dag check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print problems and the dry run as JSON")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: plandash dag check [--json] FILE|-")
		return errUsage
	}
	name := fs.Arg(0)
	var raw []byte
	var err error
	if name == "-" {
		raw, err = io.ReadAll(stdin)
	} else {
		raw, err = os.ReadFile(name)
	}
	if err != nil {
		return err
	}
	p, err := dag.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	run := dag.Simulate(p)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"valid": p.Valid(), "problems": p.Problems, "dryRun": run}); err != nil {
			return err
		}
	} else {
		printDryRun(stdout, name, p, run)
	}
	if !p.Valid() {
		return exitCode(1)
	}
	return nil
}

func printDryRun(w io.Writer, name string, p *dag.Plan, run *dag.DryRun) {
	fmt.Fprintf(w, "%s: %d calls, %d dependencies\n", name, len(p.Calls), len(p.Graph.Edges))
	if p.Valid() {
		fmt.Fprintln(w, "valid: no problems")
	} else {
		fmt.Fprintf(w, "%d problems:\n", len(p.Problems))
		for _, pr := range p.Problems {
			fmt.Fprintf(w, "  %s: %s\n", pr.Kind, pr.Message)
		}
	}
	fmt.Fprintf(w, "order: %s\n", strings.Join(run.Order, " → "))
	for i, lvl := range run.Levels {
		fmt.Fprintf(w, "level %d (in parallel): %s\n", i, strings.Join(lvl, ", "))
	}
	fmt.Fprintf(w, "critical path: %s\n", strings.Join(run.CriticalPath, " → "))
	if len(run.Blocked) > 0 {
		fmt.Fprintf(w, "blocked (in or behind a cycle): %s\n", strings.Join(run.Blocked, ", "))
	}
	for _, r := range run.Runs {
		label := "state after the run"
		if r.Instance >= 0 {
			label = fmt.Sprintf("instance %d: state after the run", r.Instance)
		}
		keys := make([]string, len(r.FinalKeys))
		for i, k := range r.FinalKeys {
			keys[i] = fmt.Sprint(k)
		}
		fmt.Fprintf(w, "%s: %s\n", label, strings.Join(keys, ", "))
		for _, u := range r.Unresolved {
			fmt.Fprintf(w, "  unresolved: %s reads %v\n", u.Call, u.Path)
		}
	}
}
