package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The start-up banner goes to whatever collects the server's output (journald, a container's
// log): unless that is a terminal, it names the address and the `plandash url` command that
// prints the token, never the admin token itself.
func TestBannerKeepsTheTokenOutOfLogs(t *testing.T) {
	s := startServer(t, "serve")
	s.stop()
	for name, out := range map[string]string{"stdout": s.stdout.String(), "stderr": s.stderr.String()} {
		if strings.Contains(out, s.token) {
			t.Errorf("the admin token is on %s:\n%s", name, out)
		}
	}
	if want := "run `plandash url --data " + s.data + "` for the address with the token"; !strings.Contains(s.stdout.String(), want) {
		t.Errorf("the banner does not say how to get the token (%q):\n%s", want, s.stdout.String())
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if isTerminal(f) || isTerminal(w) || isTerminal(&strings.Builder{}) {
		t.Error("a file, a pipe or a buffer is taken for a terminal")
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		if !isTerminal(tty) {
			t.Error("/dev/tty is not taken for a terminal")
		}
	}
}

func TestURLHint(t *testing.T) {
	env := testEnv(t)
	def := defaultDataDir(env)
	for _, tc := range []struct {
		demo bool
		data string
		want string
	}{
		{false, def, "plandash url"},
		{true, filepath.Join(def, "demo"), "plandash url --demo"},
		{false, "/srv/plan dash", "plandash url --data '/srv/plan dash'"},
		{true, "/srv/it's", `plandash url --data '/srv/it'\''s'`},
	} {
		if got := urlHint(env, tc.demo, tc.data); got != tc.want {
			t.Errorf("urlHint(demo %v, %q) = %q, want %q", tc.demo, tc.data, got, tc.want)
		}
	}
}

func TestGoRunBuild(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build2739/b001/exe/plandash":  true,
		"/tmp/go-build2739/b001/plandash.test": false,
		"/home/u/go/bin/plandash":              false,
		"/opt/exe/plandash":                    false,
	} {
		if got := goRunBuild(exe); got != want {
			t.Errorf("goRunBuild(%q) = %v, want %v", exe, got, want)
		}
	}
}
