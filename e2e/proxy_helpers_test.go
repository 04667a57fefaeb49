package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// tools are the programs the proxy tests run as real processes: plandash itself, the scripted
// plan agent, and the Go SDK's example agent and client. They are built once per test binary
// into this run's own directory (removed by TestMain), so concurrent runs never share or
// overwrite a binary.
var tools struct {
	once sync.Once
	dir  string
	err  error
}

func tool(t *testing.T, name string) string {
	t.Helper()
	tools.once.Do(func() {
		tools.dir = filepath.Join(runDir, "tools")
		if tools.err = os.MkdirAll(tools.dir, 0o755); tools.err != nil {
			return
		}
		for name, pkg := range map[string]string{
			"plandash":  "github.com/plandash/plandash/cmd/plandash",
			"planagent": "../internal/acpproxy/testdata/planagent",
			"agent":     "github.com/coder/acp-go-sdk/example/agent",
			"client":    "github.com/coder/acp-go-sdk/example/client",
		} {
			// -buildvcs=false: a worktree or a copy without .git must build too.
			out, err := exec.Command("go", "build", "-buildvcs=false", "-o", filepath.Join(tools.dir, name), pkg).CombinedOutput()
			if err != nil {
				tools.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if tools.err != nil {
		t.Fatal(tools.err)
	}
	return filepath.Join(tools.dir, name)
}

// acpArgs are the flags that point `plandash acp` at a test server.
func acpArgs(a *app, extra ...string) []string {
	return append([]string{"acp", "--server", "http://" + a.addr, "--token", token, "--data", a.dir}, extra...)
}

// ideProc is a scripted IDE that runs `plandash acp … -- AGENT` as its agent, as Zed would.
type ideProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	mu     sync.Mutex
	got    bytes.Buffer // every byte the IDE received
	stderr bytes.Buffer
	nextID int
}

func startIDE(t *testing.T, args ...string) *ideProc {
	t.Helper()
	c := &ideProc{t: t, lines: make(chan []byte, 4096)}
	c.cmd = exec.Command(tool(t, "plandash"), args...)
	c.cmd.Stderr = &syncWriter{mu: &c.mu, w: &c.stderr}
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.lines)
		br := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			c.mu.Lock()
			c.got.Write(line)
			c.mu.Unlock()
			if len(line) > 0 {
				c.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		c.in.Close()
		c.cmd.Process.Kill()
		c.cmd.Wait()
		if t.Failed() {
			t.Logf("plandash acp stderr:\n%s", c.logs())
		}
	})
	return c
}

func (c *ideProc) logs() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// rpcMsg is what the IDE reads.
type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// call sends a request and waits for its response, answering permission requests with the
// first option on the way.
func (c *ideProc) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("write %s: %v", method, err)
	}
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("plandash acp closed its output before answering %s; stderr:\n%s", method, c.logs())
			}
			var m rpcMsg
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			if m.Method == "session/request_permission" {
				fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`+"\n", m.ID)
			}
			if m.Method == "" && string(m.ID) == fmt.Sprint(id) {
				if m.Error != nil {
					c.t.Fatalf("%s failed: %s", method, m.Error)
				}
				return m.Result
			}
		case <-time.After(waitFor):
			c.t.Fatalf("no answer to %s within %s; stderr:\n%s", method, waitFor, c.logs())
		}
	}
}

// open initializes (advertising the plan capability or not) and starts a session.
func (c *ideProc) open(plan bool) string {
	c.t.Helper()
	caps := map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true}
	if plan {
		caps["plan"] = map[string]any{}
	}
	c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps, "clientInfo": map[string]any{"name": "e2e-ide", "version": "1"}})
	var r struct {
		SessionID string `json:"sessionId"`
	}
	raw := c.call("session/new", map[string]any{"cwd": "/tmp/project", "mcpServers": []any{}})
	if err := json.Unmarshal(raw, &r); err != nil || r.SessionID == "" {
		c.t.Fatalf("session/new answered %s (%v)", raw, err)
	}
	return r.SessionID
}

func (c *ideProc) prompt(session, text string) {
	c.t.Helper()
	c.call("session/prompt", map[string]any{"sessionId": session, "prompt": []any{map[string]any{"type": "text", "text": text}}})
}

// close ends the IDE's side and returns plandash's exit code.
func (c *ideProc) close() int {
	c.t.Helper()
	c.in.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(waitFor):
		c.t.Fatalf("plandash acp did not exit after the IDE closed its input; stderr:\n%s", c.logs())
	}
	for range c.lines {
	}
	return c.cmd.ProcessState.ExitCode()
}

func (c *ideProc) received() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.got.Bytes())
}

// sessionUpdates lists the sessionUpdate kinds the IDE received.
func sessionUpdates(raw []byte) []string {
	var kinds []string
	for _, line := range bytes.Split(raw, []byte("\n")) {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Update struct {
					Kind string `json:"sessionUpdate"`
				} `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method == "session/update" {
			kinds = append(kinds, m.Params.Update.Kind)
		}
	}
	return kinds
}

// apiPlans is the server's overview as the JSON API gives it, for one session: plan id →
// "kind:entry statuses", removed plans left out.
func apiPlans(t *testing.T, a *app, session string) map[string]string {
	t.Helper()
	// The session's own record, not the overview's list: a session whose proxy ended is ended
	// (it looks gone), and its plans are still what it left.
	var out struct {
		Plans []struct {
			ID      string `json:"id"`
			Kind    string `json:"kind"`
			Removed bool   `json:"removed"`
			Entries []struct {
				Status string `json:"status"`
			} `json:"entries"`
		} `json:"plans"`
	}
	plans := map[string]string{}
	code, raw := a.gateAPI(http.MethodGet, "/api/v1/sessions/"+url.PathEscape(session), "")
	if code == http.StatusNotFound {
		return plans // not yet
	}
	if code != http.StatusOK || json.Unmarshal(raw, &out) != nil {
		t.Fatalf("GET the session %s: %d %s", session, code, raw)
	}
	for _, p := range out.Plans {
		if p.Removed {
			continue
		}
		var st []string
		for _, e := range p.Entries {
			st = append(st, e.Status)
		}
		plans[p.ID] = p.Kind + ":" + strings.Join(st, ",")
	}
	return plans
}

// waitPlans polls the API until the session's plans are want.
func waitPlans(t *testing.T, a *app, session string, want map[string]string) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	var got map[string]string
	for time.Now().Before(deadline) {
		if got = apiPlans(t, a, session); fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}
	t.Fatalf("the dashboard's plans for %s are\n %v\nwant\n %v", session, got, want)
}
