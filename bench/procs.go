package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// token is the bearer token every plandash the benchmarks start is given.
const token = "bench-token-0123456789abcdef"

// env holds what all benchmarks share: the built plandash binary, this program's own path (to
// start the yardsticks) and a scratch directory removed at the end.
type env struct {
	opts
	plandash string // the binary built from the repository
	self     string // this program, re-executed as the yardsticks' servers
	dir      string
	http     *http.Client
}

func newEnv(ctx context.Context, o opts) (*env, error) {
	dir, err := os.MkdirTemp("", "plandash-bench-")
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	e := &env{opts: o, self: self, dir: dir, plandash: filepath.Join(dir, "plandash"),
		// One connection per poster, kept alive: the figures are about the servers, not dialing.
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}}
	fmt.Fprintf(o.log, "building plandash from %s …\n", o.repo)
	build := exec.CommandContext(ctx, "go", "build", "-buildvcs=false", "-o", e.plandash, "./cmd/plandash")
	build.Dir, build.Stdout, build.Stderr = o.repo, o.log, o.log
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("go build: %w", err)
	}
	return e, nil
}

func (e *env) close() { os.RemoveAll(e.dir) }

// tempDir is a fresh directory under the scratch directory.
func (e *env) tempDir(name string) (string, error) { return os.MkdirTemp(e.dir, name+"-") }

// server is a process serving HTTP on a loopback port it printed.
type server struct {
	name string
	URL  string
	cmd  *exec.Cmd
	done chan struct{}
}

// wsURL is the address of the server's socket path path (with its query).
func (s *server) wsURL(path string) string { return "ws" + strings.TrimPrefix(s.URL, "http") + path }

// dialSocket opens a websocket with the bench token, with no limit on what one message may weigh.
func dialSocket(ctx context.Context, url string) (*websocket.Conn, error) {
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(-1)
	return c, nil
}

var addrRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

// startServer runs cmd and waits for it to print its address on stdout.
func startServer(name string, cmd *exec.Cmd, logTo io.Writer) (*server, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logTo
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s := &server{name: name, cmd: cmd, done: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := addrRE.FindString(sc.Text()); m != "" && s.URL == "" {
				found <- m
			}
		}
		close(found)
	}()
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	select {
	case u, ok := <-found:
		if !ok {
			s.stop()
			return nil, fmt.Errorf("%s exited before printing its address", name)
		}
		s.URL = u
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, fmt.Errorf("%s printed no address in 30s", name)
	}
	return s, nil
}

// stop ends the server gracefully, then for good.
func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// cpu is the server's CPU time so far (user + system), from /proc.
func (s *server) cpu() (time.Duration, error) { return procCPU(s.cmd.Process.Pid) }

// peakRSS is the most memory the server has held resident so far (VmHWM), in MB.
func (s *server) peakRSS() (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", s.cmd.Process.Pid)
}

// settle waits (up to 30 s) until the machine is quiet: under a tenth of its CPU busy over
// three samples in a row. What an earlier run left behind (a server still working on it, the
// kernel writing its database out) must not run beside the next.
func settle(ctx context.Context) error {
	busy, total, err := cpuTimes()
	if err != nil {
		return err
	}
	for still, end := 0, time.Now().Add(30*time.Second); still < 3 && time.Now().Before(end); {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		b, t, err := cpuTimes()
		if err != nil {
			return err
		}
		if still++; t > total && (b-busy)*10 > t-total {
			still = 0
		}
		busy, total = b, t
	}
	return nil
}

// cpuTimes reads the machine's busy and total CPU time, in ticks, from /proc/stat.
func cpuTimes() (busy, total uint64, err error) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, 0, errors.New("unreadable /proc/stat")
	}
	for i, v := range f[1:] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/stat: %w", err)
		}
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total, nil
}

// startPlandash runs `plandash serve` on a free port with its own data, plans and home
// directories: nothing of the developer's is read or written.
func (e *env) startPlandash(extra ...string) (*server, error) {
	dir, err := e.tempDir("plandash")
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"),
		"--token", token, "--plans-dir", filepath.Join(dir, "plans"), "--codex-sessions", ""}, extra...)
	cmd := exec.Command(e.plandash, args...)
	cmd.Env = isolatedEnv(dir)
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	return startServer("plandash", cmd, logf)
}

// startYard runs this program as a yardstick server (yard-ingest, yard-hub, yard-poll).
func (e *env) startYard(kind string) (*server, error) {
	dir, err := e.tempDir(kind)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(e.self, kind, "-data", dir)
	cmd.Env = isolatedEnv(dir)
	return startServer(kind, cmd, e.log)
}

// isolatedEnv is the environment with HOME and XDG_DATA_HOME pointing into dir.
func isolatedEnv(dir string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "PLANDASH_") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "xdg"))
}

// clockTick is the unit of /proc/<pid>/stat's times: USER_HZ, 100 on every Linux we run on.
const clockTick = 10 * time.Millisecond

// procCPU reads utime+stime of pid from /proc/<pid>/stat.
func procCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces and parentheses; the fields start after the last ')'.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, errors.New("unreadable /proc stat")
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	// Fields 14 and 15 of stat(5); f[0] is field 3.
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * clockTick, nil
}

// post sends body to url with the bench token and reads the whole answer.
func (e *env) post(ctx context.Context, url, body string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	return e.do(req)
}

func (e *env) do(req *http.Request) ([]byte, error) {
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		return b, fmt.Errorf("%s %s: %s: %.300s", req.Method, req.URL.Path, resp.Status, b)
	}
	return b, nil
}
