package agenttest

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ClineKey is the API key the harness gives Cline's provider.
const ClineKey = "agenttest-cline-key"

// ClineProvider and ClineModel are the provider and model the harness configures: Cline's
// "openai-native" provider speaks OpenAI's Responses API and takes a base URL.
const (
	ClineProvider = "openai-native"
	ClineModel    = "gpt-5"
)

// Cline is Cline's CLI (npm cline) set up to run against a ModelServer: a throwaway HOME in
// which `cline auth openai-native -k KEY -m gpt-5 -b URL/v1` configured the provider (Cline
// 3.0.65 takes a base URL only for its OpenAI providers). Hook files go in Home/.cline/hooks.
type Cline struct {
	// Argv runs the CLI (its compiled binary; see Command).
	Argv []string
	// Home is the throwaway HOME.
	Home string
	// Dir is the project directory the CLI runs in.
	Dir string
	// Env is the CLI's whole environment; a test may append to it before starting the CLI.
	Env []string

	t testing.TB
}

// NewCline prepares Cline against srv. It skips the test when the CLI is not installed.
func NewCline(t testing.TB, srv *ModelServer) *Cline {
	t.Helper()
	argv := Command(t, "cline")
	root := t.TempDir()
	c := &Cline{Argv: argv, Home: filepath.Join(root, "home"), Dir: mkdirReal(t, filepath.Join(root, "project")), t: t}
	// The ClinePass notice would open over the prompt in the terminal UI. The terminal UI
	// starts a detached "hub" daemon on a fixed port, shared by every Cline of the user and
	// outliving it: each test's Cline gets a port of its own, and its daemon is stopped when
	// the test ends.
	port := freePort(t)
	c.Env = append(baseEnv(t, c.Home), "TERM=xterm-256color", "CLINE_DISABLE_CLINE_PASS_NOTICE=1", "CLINE_HUB_PORT="+port)
	t.Cleanup(func() { stopClineHub(port) })
	res := runCLI(t, time.Minute, c.Dir, c.Env, append(append([]string(nil), argv...),
		"auth", ClineProvider, "-k", ClineKey, "-m", ClineModel, "-b", srv.URL+"/v1"))
	if res.Err != nil {
		t.Fatalf("agenttest: cline auth: %v\n%s%s", res.Err, res.Stdout, res.Stderr)
	}
	return c
}

// Run runs `cline -P openai-native -m gpt-5 ARGS… PROMPT` (one task, headless) to completion or
// timeout.
func (c *Cline) Run(timeout time.Duration, prompt string, args ...string) Result {
	c.t.Helper()
	argv := append(append([]string(nil), c.Argv...), "-P", ClineProvider, "-m", ClineModel)
	argv = append(append(argv, args...), prompt)
	return runCLI(c.t, timeout, c.Dir, c.Env, argv)
}

// clinePromo is the text of the promotion Cline's terminal UI opens over its prompt at start.
const clinePromo = "Press Enter to open"

// Interactive starts Cline's terminal UI (-i) with args under tmux, closes the promotion it may
// open with (CLINE_DISABLE_CLINE_PASS_NOTICE should keep it away; it eats whatever is typed
// while it shows), and waits until it is ready for a prompt.
func (c *Cline) Interactive(args ...string) *Tmux {
	c.t.Helper()
	argv := append(append([]string(nil), c.Argv...), "-i", "-P", ClineProvider, "-m", ClineModel)
	x := StartTmux(c.t, c.Dir, c.Env, append(argv, args...)...)
	screen := x.WaitScreenFunc(time.Minute, func(s string) bool {
		return strings.Contains(s, clinePromo) || strings.Contains(s, "What can I do for you?")
	})
	if strings.Contains(screen, clinePromo) {
		x.Answer(clinePromo, 30*time.Second, "Escape")
	}
	x.WaitScreen(30*time.Second, "What can I do for you?")
	return x
}

// freePort is a loopback port nothing listens on now.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// stopClineHub stops the hub daemon a test's Cline started on port: the one process whose
// command line is `cline --cline-hub-daemon … --port PORT`.
func stopClineHub(port string) {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := bytes.Split(bytes.TrimRight(cmd, "\x00"), []byte{0})
		daemon, onPort := false, false
		for i, a := range args {
			daemon = daemon || string(a) == "--cline-hub-daemon"
			onPort = onPort || string(a) == "--port" && i+1 < len(args) && string(args[i+1]) == port
		}
		if daemon && onPort {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			reap(pid, 5*time.Second)
		}
	}
}
