package client_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/client"
)

func TestResolve(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		env  func(string) string
		want client.Target
	}{
		{"defaults", nil, env("HOME", "/home/ann"),
			client.Target{Server: "http://127.0.0.1:7420", DataDir: "/home/ann/.local/share/plandash"}},
		{"XDG", nil, env("HOME", "/home/ann", "XDG_DATA_HOME", "/xdg"),
			client.Target{Server: "http://127.0.0.1:7420", DataDir: "/xdg/plandash"}},
		{"no home", nil, env(), client.Target{Server: "http://127.0.0.1:7420", DataDir: ".plandash"}},
		{"environment", nil, env("PLANDASH_SERVER", "http://h:1", "PLANDASH_TOKEN", "envtok", "HOME", "/h"),
			client.Target{Server: "http://h:1", Token: "envtok", DataDir: "/h/.local/share/plandash"}},
		{"flags beat the environment", []string{"--server", "http://f:2", "--token", "flagtok", "--data", "/d"},
			env("PLANDASH_SERVER", "http://h:1", "PLANDASH_TOKEN", "envtok"),
			client.Target{Server: "http://f:2", Token: "flagtok", DataDir: "/d"}},
		{"a CA from the environment", nil, env("PLANDASH_CA", "/etc/ca.pem", "HOME", "/h"),
			client.Target{Server: "http://127.0.0.1:7420", DataDir: "/h/.local/share/plandash", CA: "/etc/ca.pem"}},
		{"--ca beats the environment", []string{"--ca", "/mine.pem"}, env("PLANDASH_CA", "/etc/ca.pem", "HOME", "/h"),
			client.Target{Server: "http://127.0.0.1:7420", DataDir: "/h/.local/share/plandash", CA: "/mine.pem"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			var f client.Flags
			f.Register(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if got := client.Resolve(tc.env, f); got != tc.want {
				t.Errorf("Resolve = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("filetok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "token"), []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		target  client.Target
		want    string
		wantErr string
	}{
		{"given", client.Target{Token: "given", DataDir: dir}, "given", ""},
		{"the data directory's", client.Target{DataDir: dir}, "filetok", ""},
		{"none yet", client.Target{DataDir: t.TempDir()}, "", "pass --token or $PLANDASH_TOKEN"},
		{"an empty file", client.Target{DataDir: empty}, "", "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.target.ReadToken()
			if got != tc.want || tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("ReadToken = %q, %v; want %q, error with %q", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestTargetClientReadsTheTokenLate is `plandash acp --serve`: the token file appears after the
// client was made, and the next call uses it.
func TestTargetClientReadsTheTokenLate(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	c := client.Target{Server: s.URL, DataDir: dir}.Client(client.WithRetry(client.Retry{}))
	if _, err := c.ApprovalCount(context.Background()); err == nil || !strings.Contains(err.Error(), "no token") {
		t.Fatalf("before the token exists: %v", err)
	}
	if s.hits.Load() != 0 {
		t.Errorf("a call without a token was sent")
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ApprovalCount(context.Background()); err != nil {
		t.Fatalf("after: %v", err)
	}
}
