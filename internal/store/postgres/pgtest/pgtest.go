// Package pgtest gives tests a fresh PostgreSQL schema of their own on the cluster named by
// PLANDASH_TEST_PG (scripts/pg-test.sh starts one and sets it). Without it, tests skip with a
// message on a developer's machine and fail in CI (CI set), where a missing database must not
// pass unnoticed.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env is the variable that holds the test cluster's URL.
const Env = "PLANDASH_TEST_PG"

// BaseURL is the test cluster's URL, or skips (locally) or fails (in CI) the test without one.
func BaseURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	switch {
	case u != "":
		return u
	case os.Getenv("CI") != "":
		t.Fatalf("%s is not set: CI must run the PostgreSQL tests (scripts/test.sh starts a cluster with scripts/pg-test.sh)", Env)
	default:
		t.Skipf("%s is not set; run these tests with scripts/pg-test.sh go test ./internal/store/postgres/...", Env)
	}
	return ""
}

// URL creates an empty schema for this test and returns the cluster's URL with search_path set
// to it, so the tables a store creates land there. The schema is dropped when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	base := BaseURL(t)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s must be a postgres:// URL", Env)
	}
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	schema := "test_" + hex.EncodeToString(b)
	exec(t, base, `CREATE SCHEMA `+schema)
	t.Cleanup(func() { exec(t, base, `DROP SCHEMA `+schema+` CASCADE`) })
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// exec runs one statement on its own connection. The schema name is ours, not outside input.
func exec(t testing.TB, base, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to the test cluster: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
