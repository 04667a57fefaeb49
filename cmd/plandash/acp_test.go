package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/web"
)

// TestAcpServeUsesTheGivenToken is `plandash acp --serve` given a token by flag or environment:
// the embedded dashboard must take that token, or it refuses every frame the proxy sends it
// with it, and nothing is recorded.
func TestAcpServeUsesTheGivenToken(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to play the agent")
	}
	const update = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-token","update":{"sessionUpdate":"plan","entries":[{"content":"Build","priority":"high","status":"pending"}]}}}`
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"--token", []string{"--token", "given-by-flag"}, nil},
		{"$PLANDASH_TOKEN", nil, map[string]string{"PLANDASH_TOKEN": "given-by-env"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			args := append([]string{"acp", "--serve", "--server", "http://" + addr, "--data", data, "--flush", "5s"}, tc.args...)
			args = append(args, "--", "sh", "-c", "printf '%s\\n' '"+update+"'")
			var stdout, stderr syncBuffer // the agent's stderr is copied in beside plandash's own log
			getenv := func(k string) string { return tc.env[k] }
			if err := run(ctx, args, getenv, strings.NewReader(""), &stdout, &stderr); err != nil {
				t.Fatalf("plandash acp: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(stdout.String(), `"s-token"`) {
				t.Fatalf("the IDE did not get the agent's frame: %q", stdout.String())
			}
			if strings.Contains(stderr.String(), "did not take the last frames") {
				t.Errorf("the dashboard refused the frames:\n%s", stderr.String())
			}
			srv, err := app.Open(ctx, app.Config{Config: web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, DataDir: data, Token: "any"})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			if _, err := srv.Plans.SessionOnly(ctx, "s-token"); err != nil {
				t.Errorf("the session was not recorded: %v\n%s", err, stderr.String())
			}
		})
	}
}
