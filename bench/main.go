// Command bench compares plandash, started as the real binary, with a yardstick doing the same
// job, side by side in one process tree, and prints the ratios. It exists because in-package
// benchmarks flattered plandash: they started clocks late, skipped the expensive half of a job
// or compared against a peer that did less. Here every figure is taken from outside the
// process, on the same machine, in alternating runs.
//
//	go run ./bench [-quick] [-runs N] [ingest|fanout|longsession|overview|proxy|proxylat|decision|notify|waitburst|layout|memory|all]
//	scripts/pg-test.sh go run ./bench [-quick] [-runs N] team
//
// The yardsticks run as separate processes too: bench re-executes itself with a hidden
// subcommand (yard-ingest, yard-hub, yard-poll, yard-overview), so CPU per message can be read from
// /proc/<pid>/stat for both sides alike.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// opts are the flags every benchmark shares.
type opts struct {
	quick bool   // small sizes, for checking that the benchmarks work
	runs  int    // how many times each pair runs, alternating which goes first
	repo  string // the repository root, where plandash is built from
	out   io.Writer
	log   io.Writer
}

// benchNames are the benchmarks, in the order "all" runs them.
var benchNames = []string{"ingest", "fanout", "longsession", "overview", "proxy", "proxylat", "decision", "notify", "waitburst", "layout", "memory"}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	// The yardsticks' server processes: bench started them; they are no user's command.
	if len(args) > 0 && strings.HasPrefix(args[0], "yard-") {
		return yardMain(ctx, args[0], args[1:], stdout)
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := opts{out: stdout, log: stderr}
	fs.BoolVar(&o.quick, "quick", false, "small sizes: check that everything works, not a measurement")
	fs.IntVar(&o.runs, "runs", 3, "runs of each pair, alternating which side goes first")
	fs.StringVar(&o.repo, "repo", ".", "the plandash repository to build")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.runs < 1 {
		return errors.New("-runs must be at least 1")
	}
	if _, err := os.Stat(o.repo + "/go.mod"); err != nil {
		return fmt.Errorf("-repo %s is not the repository root: %w", o.repo, err)
	}
	names := fs.Args()
	if len(names) == 0 || slices.Contains(names, "all") {
		names = benchNames
	}
	for _, n := range names {
		if !slices.Contains(benchNames, n) && n != "team" {
			return fmt.Errorf("unknown benchmark %q (have %s, all; and team, on PostgreSQL)", n, strings.Join(benchNames, ", "))
		}
	}
	env, err := newEnv(ctx, o)
	if err != nil {
		return err
	}
	defer env.close()
	for _, n := range names {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var t *table
		switch n {
		case "team": // not in "all": it needs a PostgreSQL cluster
			rep, err := benchTeam(ctx, env)
			if err != nil {
				return fmt.Errorf("team: %w", err)
			}
			rep.print(stdout)
			continue
		case "ingest":
			t, err = benchIngest(ctx, env)
		case "fanout":
			t, err = benchFanOut(ctx, env)
		case "longsession":
			t, err = benchLongSession(ctx, env)
		case "overview":
			t, err = benchOverview(ctx, env)
		case "proxy":
			t, err = benchProxy(ctx, env)
		case "proxylat":
			t, err = benchProxyLatency(ctx, env)
		case "decision":
			t, err = benchDecision(ctx, env)
		case "notify":
			t, err = benchNotify(ctx, env)
		case "waitburst":
			t, err = benchWaitBurst(ctx, env)
		case "layout":
			t, err = benchLayout(ctx, env)
		case "memory":
			t, err = benchMemory(ctx, env)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
		t.print(stdout)
	}
	return nil
}
