package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
	"github.com/plandash/plandash/internal/web"
)

// TestAcpServeOnPostgres: `plandash acp --serve` with --db or $PLANDASH_DB naming PostgreSQL
// serves from that database, so what the agent does lands where the team's instances read it,
// and nothing is written to a SQLite file in the data directory.
func TestAcpServeOnPostgres(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to play the agent")
	}
	for _, tc := range []struct {
		name string
		flag bool // --db, else $PLANDASH_DB
		sid  string
	}{
		{"--db", true, "s-pg-flag"},
		{"$PLANDASH_DB", false, "s-pg-env"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := pgtest.URL(t)
			data := t.TempDir()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			update := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + tc.sid +
				`","update":{"sessionUpdate":"plan","entries":[{"content":"Build","priority":"high","status":"pending"}]}}}`
			args := []string{"acp", "--serve", "--server", "http://" + addr, "--data", data, "--token", "tok", "--flush", "10s"}
			env := map[string]string{}
			if tc.flag {
				args = append(args, "--db", db)
			} else {
				env["PLANDASH_DB"] = db
			}
			args = append(args, "--", "sh", "-c", "printf '%s\\n' '"+update+"'")
			var stdout, stderr bytes.Buffer
			if err := run(ctx, args, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr); err != nil {
				t.Fatalf("plandash acp: %v\n%s", err, stderr.String())
			}
			if strings.Contains(stderr.String(), "did not take the last frames") || strings.Contains(stderr.String(), "cannot open") {
				t.Fatalf("the embedded dashboard did not take the frames:\n%s", stderr.String())
			}
			srv, err := app.Open(ctx, app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, DataDir: t.TempDir(), DB: db, Token: "any"})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			if _, err := srv.Plans.SessionOnly(ctx, tc.sid); err != nil {
				t.Errorf("the session is not in PostgreSQL: %v\n%s", err, stderr.String())
			}
			if m, _ := filepath.Glob(filepath.Join(data, "plandash.db*")); len(m) > 0 {
				t.Errorf("the embedded server also wrote SQLite files: %v", m)
			}
		})
	}
}
