package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/client"
)

// `plandash url` prints the address the server actually listens on, for serve and for the demo
// (whose data directory is the default one's demo/), and falls back to the default address once
// the server has stopped.
func TestURLFindsTheRunningServer(t *testing.T) {
	tests := []struct {
		name    string
		serve   []string // the server's command line, after the address
		urlArgs func(data string) []string
	}{
		{"serve", []string{"serve", "--data", "DATA"}, func(data string) []string { return []string{"url", "--data", data} }},
		{"serve default data", []string{"serve"}, func(string) []string { return []string{"url"} }},
		{"demo", []string{"demo"}, func(string) []string { return []string{"url", "--demo"} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			data := t.TempDir()
			args := []string{tc.serve[0], "--addr", "127.0.0.1:0", "--plans-dir", filepath.Join(t.TempDir(), "plans")}
			for _, a := range tc.serve[1:] {
				args = append(args, strings.ReplaceAll(a, "DATA", data))
			}
			s := startServerEnv(t, env, args...)
			out, errOut, err := runOut(t, env, "", tc.urlArgs(data)...)
			if err != nil {
				t.Fatalf("url: %v\n%s", err, errOut)
			}
			if want := s.base + "/?token=" + s.token + "\n"; out != want {
				t.Fatalf("url printed %q, want %q", out, want)
			}
			s.stop()
			out, _, err = runOut(t, env, "", tc.urlArgs(data)...)
			if err != nil || !strings.HasPrefix(out, client.DefaultServer+"/?") {
				t.Errorf("after the server stopped, url printed %q (%v), want the default address", out, err)
			}
		})
	}
}

// The demo takes a free port when its default one is taken; serve (and a demo given --addr)
// fails instead, naming the address.
func TestListenFallsBackOnlyWhenAllowed(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	if _, err := listen(addr, false); err == nil || !strings.Contains(err.Error(), addr) {
		t.Errorf("listen on a taken port without fallback: %v, want an error naming %s", err, addr)
	}
	ln, err := listen(addr, true)
	if err != nil {
		t.Fatalf("listen with fallback: %v", err)
	}
	defer ln.Close()
	if ln.Addr().String() == addr {
		t.Errorf("listen with fallback returned the taken address %s", addr)
	}
}

// A recorded address that is not an http(s) URL is ignored: the file must not send the token
// anywhere else.
func TestReadAddrRefusesOddContent(t *testing.T) {
	tests := []struct{ content, want string }{
		{"http://127.0.0.1:7421\n", "http://127.0.0.1:7421"},
		{"https://plandash.example.com", "https://plandash.example.com"},
		{"file:///etc/passwd", ""},
		{"127.0.0.1:7421", ""},
		{"", ""},
		{strings.Repeat("x", 600), ""},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		if err := os.WriteFile(client.AddrFile(dir), []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := client.ReadAddr(dir); got != tc.want {
			t.Errorf("ReadAddr(%q) = %q, want %q", tc.content, got, tc.want)
		}
	}
}
