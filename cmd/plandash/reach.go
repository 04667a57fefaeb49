package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/client"
)

// reach is what a hook would find at its server: whether it answers and takes the token. Hooks
// stay silent on failure (they must never hold an agent up), so install and doctor ask for them.
type reach struct {
	OK   bool
	Line string // one line: where the hooks report, and what is wrong with the fix
}

// checkReach asks the target what a hook's post would meet: /healthz, then an empty ingest post,
// which needs the token (and the ingest scope) but applies nothing.
func checkReach(ctx context.Context, t client.Target, getenv func(string) string) reach {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c := t.Client(client.WithTimeout(3*time.Second), client.WithRetry(client.Retry{}))
	demo := demoElsewhere(t, getenv)
	if _, err := c.Health(ctx); err != nil {
		fix := "start `plandash serve`"
		if demo != "" {
			fix += ", or report to the demo running at " + demo + " with --data " + demoDataDir(getenv)
		}
		return reach{Line: fmt.Sprintf("✗ nothing answers at %s: %s (the hooks stay silent until it does)", t.Server, fix)}
	}
	if _, err := t.ReadToken(); err != nil {
		return reach{Line: fmt.Sprintf("✗ %s answers, but %v", t.Server, err)}
	}
	_, err := c.Ingest(ctx, strings.NewReader(""), client.IngestOptions{})
	status := client.StatusOf(err)
	switch {
	case err == nil || status == http.StatusBadRequest: // nothing to apply: the token got through
		return reach{OK: true, Line: fmt.Sprintf("✓ reporting to %s (token accepted)", t.Server)}
	case status == http.StatusUnauthorized:
		if ds := client.ReadAddr(demoDataDir(getenv)); ds != "" && ds == t.Server && t.DataDir != demoDataDir(getenv) {
			return reach{Line: fmt.Sprintf("✗ token refused: the server at %s is the demo; use --data %s, or start `plandash serve`", t.Server, demoDataDir(getenv))}
		}
		return reach{Line: fmt.Sprintf("✗ token refused by %s: give the token of that server (--token, $PLANDASH_TOKEN, or --data of its data directory)", t.Server)}
	case status == http.StatusForbidden:
		return reach{Line: fmt.Sprintf("✗ %s refuses the token's scope: the hooks need a token of scope ingest or more", t.Server)}
	default:
		return reach{Line: fmt.Sprintf("✗ %s: %v", t.Server, err)}
	}
}

// demoDataDir is where `plandash demo` keeps its data by default.
func demoDataDir(getenv func(string) string) string {
	return filepath.Join(client.DefaultDataDir(getenv), "demo")
}

// demoElsewhere is the address of a demo that runs while the target is another server, or "".
func demoElsewhere(t client.Target, getenv func(string) string) string {
	dir := demoDataDir(getenv)
	if t.DataDir == dir {
		return ""
	}
	if a := client.ReadAddr(dir); a != "" && a != t.Server {
		return a
	}
	return ""
}
