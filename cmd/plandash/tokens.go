package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/tokens"
)

const tokensUsage = `Usage: plandash tokens COMMAND [flags]

Per-agent tokens: one for each agent or machine that reports to this plandash, each with a scope,
revocable alone, and recorded as "token:NAME" on what it posts and decides. They work on the
database directly, so run them on the server machine (or anywhere that reaches its PostgreSQL),
while plandash runs; a revocation takes effect within a second on every instance.

  create NAME [--scope ingest|decide|admin] [--expires D]
                 make a token and print its secret on stdout, once (it is stored hashed)
  list [--json]  every token: name, scope, created, expires, last used, revoked; never a secret
  revoke NAME    refuse the token from now on

Scopes: ingest posts plans, hooks and ACP relays, asks for approval and waits for its own
requests (the default); decide also reads the dashboard's API and decides; admin may do
anything the server's own token may, except open the pages, which stay the browser's.

Flags:
  --data DIR     the data directory holding plandash.db (default as for serve)
  --db URL       the PostgreSQL database instead (default $PLANDASH_DB)
  --scope S      create: ingest, decide or admin (default ingest)
  --expires D    create: valid for this long, e.g. 12h, 30d, 2w (default: until revoked)
  --json         list: JSON on stdout

Agents use a token as $PLANDASH_TOKEN with --server (and $PLANDASH_CA for a private CA):
  PLANDASH_TOKEN=$(plandash tokens create ci-runner) plandash ingest --server https://plandash.example.com run.ndjson
`

// tokensCmd creates, lists and revokes per-agent tokens.
func tokensCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plandash tokens", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, tokensUsage) }
	data := fs.String("data", defaultDataDir(getenv), "data directory")
	db := fs.String("db", "", "PostgreSQL URL (default $PLANDASH_DB)")
	scopeFlag := fs.String("scope", string(tokens.Ingest), "create: the token's scope")
	expires := fs.String("expires", "", "create: how long the token is valid")
	asJSON := fs.Bool("json", false, "list: JSON output")
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return errUsage
	}
	if len(pos) == 0 {
		fmt.Fprint(stderr, tokensUsage)
		return errUsage
	}
	sub, pos := pos[0], pos[1:]
	want := map[string]int{"create": 1, "list": 0, "revoke": 1}
	n, known := want[sub]
	if !known || len(pos) != n {
		fmt.Fprintf(stderr, "plandash tokens: want create NAME, list or revoke NAME\n\n%s", tokensUsage)
		return errUsage
	}
	var scope tokens.Scope
	var ttl time.Duration
	if sub == "create" {
		if scope, err = tokens.ParseScope(*scopeFlag); err != nil {
			fmt.Fprintf(stderr, "plandash tokens create: --scope: %v\n", err)
			return errUsage
		}
		if ttl, err = parseExpiry(*expires); err != nil {
			fmt.Fprintf(stderr, "plandash tokens create: --expires: %v\n", err)
			return errUsage
		}
		if err := tokens.CheckName(pos[0]); err != nil {
			fmt.Fprintf(stderr, "plandash tokens create: %v\n", err)
			return errUsage
		}
	}
	if *db == "" {
		*db = getenv("PLANDASH_DB")
	}
	database, err := app.OpenDatabase(ctx, app.Config{DataDir: *data, DB: *db})
	if err != nil {
		return err
	}
	defer database.Close()
	svc := tokens.NewService(database.Tokens(), nil, slog.New(slog.NewTextHandler(stderr, nil)))
	switch sub {
	case "create":
		tok, secret, err := svc.Create(ctx, pos[0], scope, ttl)
		if err != nil {
			return err
		}
		until := "until revoked"
		if !tok.Expires.IsZero() {
			until = "until " + tok.Expires.Local().Format(time.DateTime)
		}
		// The secret alone on stdout, so `$(plandash tokens create NAME)` captures it.
		fmt.Fprintln(stdout, secret)
		fmt.Fprintf(stderr, "Token %s made: scope %s, valid %s. This is the only time its secret is shown;\ngive it to the agent as PLANDASH_TOKEN. Revoke it with `plandash tokens revoke %s`.\n", tok.Name, tok.Scope, until, tok.Name)
		return nil
	case "revoke":
		if err := svc.Revoke(ctx, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Token %s revoked: it is refused from now on (within a second on every instance).\n", pos[0])
		return nil
	}
	list, err := svc.List(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		if list == nil {
			list = []tokens.Token{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	return printTokens(stdout, list, time.Now())
}

// printTokens is the list as a table; times in local time to the minute.
func printTokens(w io.Writer, list []tokens.Token, now time.Time) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "No tokens yet: make one with `plandash tokens create NAME`.")
		return err
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPE\tCREATED\tEXPIRES\tLAST USED\tREVOKED")
	at := func(t time.Time, zero string) string {
		if t.IsZero() {
			return zero
		}
		return t.Local().Format("2006-01-02 15:04")
	}
	for _, t := range list {
		exp := at(t.Expires, "never")
		if !t.Expires.IsZero() && !now.Before(t.Expires) {
			exp += " (expired)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Scope, at(t.Created, "-"), exp, at(t.LastUsed, "never"), at(t.Revoked, "-"))
	}
	return tw.Flush()
}

// parseExpiry reads --expires: a Go duration (90m, 12h) or whole days and weeks (30d, 2w);
// "" is no expiry.
func parseExpiry(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	unit := time.Duration(0)
	switch {
	case strings.HasSuffix(v, "d"):
		unit = 24 * time.Hour
	case strings.HasSuffix(v, "w"):
		unit = 7 * 24 * time.Hour
	}
	var d time.Duration
	if unit > 0 {
		n, err := strconv.Atoi(v[:len(v)-1])
		if err != nil || n <= 0 || n > 36500 {
			return 0, fmt.Errorf("%q: want a positive number of days or weeks, e.g. 30d", v)
		}
		d = time.Duration(n) * unit
	} else {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			return 0, fmt.Errorf("%q: want a duration such as 12h, 30d or 2w", v)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q: want a positive duration", v)
	}
	return d, nil
}
