package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/store/postgres/pgtest"
	"github.com/plandash/plandash/internal/tokens"
)

func TestParseExpiry(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, true}, {"90m", 90 * time.Minute, true}, {"12h", 12 * time.Hour, true},
		{"30d", 30 * 24 * time.Hour, true}, {"2w", 14 * 24 * time.Hour, true},
		{"0d", 0, false}, {"-1h", 0, false}, {"0s", 0, false}, {"d", 0, false}, {"1.5d", 0, false}, {"soon", 0, false}, {"99999999d", 0, false},
	} {
		got, err := parseExpiry(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseExpiry(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestTokensCommand: create prints the secret alone on stdout, once; names, scopes and
// expiries are checked before the database is touched; list shows no secret; revoke of an
// unknown name fails.
func TestTokensCommand(t *testing.T) {
	for _, db := range []struct {
		name  string
		where func(t *testing.T) []string
	}{
		{"SQLite", func(t *testing.T) []string { return []string{"--data", t.TempDir()} }},
		{"PostgreSQL", func(t *testing.T) []string { return []string{"--data", t.TempDir(), "--db", pgtest.URL(t)} }},
	} {
		t.Run(db.name, func(t *testing.T) { testTokensCommand(t, db.where(t)) })
	}
}

func testTokensCommand(t *testing.T, where []string) {
	env := testEnv(t)
	tok := func(args ...string) (string, string, error) {
		return runOut(t, env, "", append(append([]string{"tokens"}, args...), where...)...)
	}
	secret, errOut, err := tok("create", "ci", "--scope", "decide")
	if err != nil || !tokens.LooksLikeSecret(strings.TrimSpace(secret)) || strings.Count(secret, "\n") != 1 || !strings.Contains(errOut, "only time") {
		t.Fatalf("create: %v %q %q", err, secret, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"create", "ci"}, "exists"},
		{[]string{"create", "bad name"}, "letters, digits"},
		{[]string{"create", "x", "--scope", "root"}, "ingest, decide or admin"},
		{[]string{"create", "x", "--expires", "soon"}, "duration"},
		{[]string{"revoke", "ghost"}, "no token named"},
		{[]string{"create"}, "want create NAME"},
		{[]string{"frobnicate"}, "want create NAME"},
	} {
		_, errOut, err := tok(tc.args...)
		if err == nil || !strings.Contains(errOut+err.Error(), tc.want) {
			t.Errorf("tokens %v: %v %q; want a failure saying %q", tc.args, err, errOut, tc.want)
		}
	}
	out, _, err := tok("list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0]["name"] != "ci" || list[0]["scope"] != "decide" {
		t.Fatalf("list --json: %v %s", err, out)
	}
	if strings.Contains(out, strings.TrimSpace(secret)[4:]) || strings.Contains(out, "hash") {
		t.Fatalf("list shows the secret or its hash: %s", out)
	}
}
