package acpproxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// testTimeout bounds every wait on a peer: a failure deadline on a loaded 2-core machine, not a
// measurement.
const testTimeout = 30 * time.Second

var built struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// planAgent builds testdata/planagent once per test binary and returns its path.
func planAgent(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "plandash-acp-test-")
		if built.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-buildvcs=false", "-o", filepath.Join(built.dir, "planagent"), "./testdata/planagent").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build planagent: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return filepath.Join(built.dir, "planagent")
}

// run is a proxy with the plan agent behind it and a scripted IDE in front, all in one test.
type run struct {
	t        *testing.T
	ide      *ide
	code     chan int
	toAgent  string // file holding every byte the agent received (tee)
	stderr   *lockedBuffer
	clientIn *io.PipeWriter
}

// startRun starts the plan agent behind p (its Client* and Agent* fields are set here). The
// agent's input is also copied to a file by tee, so tests see exactly what it received.
func startRun(t *testing.T, p *Proxy, env ...string) *run {
	t.Helper()
	agent := planAgent(t)
	toAgent := filepath.Join(t.TempDir(), "c2a.jsonl")
	cmd := exec.Command("sh", "-c", `tee "$1" | "$2"`, "sh", toAgent, agent)
	cmd.Env = append(os.Environ(), env...)
	r := startCmd(t, p, cmd)
	r.toAgent = toAgent
	return r
}

// startCmd is startRun with the agent command given, without the tee.
func startCmd(t *testing.T, p *Proxy, cmd *exec.Cmd) *run {
	t.Helper()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	cin, cinW := io.Pipe()
	coutR, cout := io.Pipe()
	p.ClientIn, p.ClientOut = cin, cout
	r := &run{t: t, code: make(chan int, 1), stderr: stderr, clientIn: cinW}
	r.ide = newIDE(t, cinW, coutR)
	go func() {
		code, err := (&Agent{Cmd: cmd, StopGrace: time.Second}).Run(p)
		if err != nil {
			t.Errorf("agent run: %v", err)
		}
		cout.Close()
		r.code <- code
	}()
	t.Cleanup(func() { cinW.Close() })
	return r
}

// wait closes the IDE's side and returns the agent's exit code.
func (r *run) wait() int {
	r.t.Helper()
	r.clientIn.Close()
	select {
	case c := <-r.code:
		r.ide.drain()
		return c
	case <-time.After(testTimeout):
		r.t.Fatal("the proxied agent did not end")
		return -1
	}
}

// agentReceived is every line the agent read, as bytes.
func (r *run) agentReceived() []byte {
	b, err := os.ReadFile(r.toAgent)
	if err != nil {
		r.t.Fatal(err)
	}
	return b
}

// ide is a scripted ACP client: it sends requests, records every line it receives and answers
// permission requests with answer (nil leaves them unanswered).
type ide struct {
	t      *testing.T
	w      io.Writer
	mu     sync.Mutex
	raw    bytes.Buffer // every byte received, exactly
	sent   bytes.Buffer // every byte sent
	lines  chan []byte
	nextID int
	answer func(id json.RawMessage, params json.RawMessage) string // a result, or "" for none
	done   chan struct{}
}

func newIDE(t *testing.T, w io.Writer, r io.Reader) *ide {
	c := &ide{t: t, w: w, lines: make(chan []byte, 1<<16), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer close(c.lines)
		br := bufio.NewReaderSize(r, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			c.mu.Lock()
			c.raw.Write(line)
			c.mu.Unlock()
			if len(line) > 0 {
				c.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *ide) send(line string) {
	c.t.Helper()
	c.mu.Lock()
	c.sent.WriteString(line + "\n")
	c.mu.Unlock()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("write to the proxy: %v", err)
	}
}

// call sends a request and returns its response's result, handling what arrives meanwhile.
func (c *ide) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	c.send(string(b))
	for {
		m, ok := c.next()
		if !ok {
			c.t.Fatalf("no response to %s", method)
		}
		if m.IsResponse() && string(m.ID) == fmt.Sprint(id) {
			if m.Error != nil {
				c.t.Fatalf("%s failed: %s", method, m.Error.Message)
			}
			return m.Result
		}
	}
}

// next returns the next message, answering permission requests on the way.
func (c *ide) next() (acp.Message, bool) {
	c.t.Helper()
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				return acp.Message{}, false
			}
			msgs, err := acp.DecodeLine(line)
			if err != nil || len(msgs) != 1 {
				continue // a protocol violation: an IDE logs it and goes on
			}
			m := msgs[0]
			if m.IsRequest() && m.Method == acp.MethodRequestPermission && c.answer != nil {
				if res := c.answer(m.ID, m.Params); res != "" {
					c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, res))
				}
			}
			return m, true
		case <-time.After(testTimeout):
			c.t.Fatal("timed out waiting for the proxy")
			return acp.Message{}, false
		}
	}
}

// open does initialize and session/new; plan says whether to advertise the plan capability.
func (c *ide) open(plan bool) string {
	c.t.Helper()
	caps := map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true}
	if plan {
		caps["plan"] = map[string]any{}
	}
	c.call(acp.MethodInitialize, map[string]any{"protocolVersion": 1, "clientCapabilities": caps, "clientInfo": map[string]any{"name": "test-ide", "version": "1.0.0"}})
	res := c.call(acp.MethodSessionNew, map[string]any{"cwd": "/tmp", "mcpServers": []any{}})
	r, err := acp.DecodeNewSessionResult(res)
	if err != nil {
		c.t.Fatal(err)
	}
	return r.SessionID
}

func (c *ide) prompt(session, text string) {
	c.t.Helper()
	c.call(acp.MethodSessionPrompt, map[string]any{"sessionId": session, "prompt": []any{map[string]any{"type": "text", "text": text}}})
}

// drain waits for the proxy to close the IDE's input.
func (c *ide) drain() {
	for range c.lines {
	}
	<-c.done
}

// received is every byte the IDE got.
func (c *ide) received() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.raw.Bytes())
}

// sentBytes is every byte the IDE sent.
func (c *ide) sentBytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.sent.Bytes())
}

// updates lists the sessionUpdate kinds among lines.
func updates(t *testing.T, raw []byte) []string {
	var kinds []string
	for _, line := range bytes.Split(raw, []byte("\n")) {
		msgs, err := acp.DecodeLine(line)
		if err != nil || len(msgs) != 1 || msgs[0].Method != acp.MethodSessionUpdate {
			continue
		}
		n, _, err := acp.DecodeSessionNotification(msgs[0].Params)
		if err != nil {
			t.Fatalf("bad session/update %s: %v", line, err)
		}
		kinds = append(kinds, n.Update.Kind)
	}
	return kinds
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tapped drains a tap's queue (no sink) and returns its frames' lines.
func tapped(t *Tap) []string {
	var out []string
	for {
		fs := t.q.take(1<<20, 1<<30)
		if fs == nil {
			return out
		}
		for _, f := range fs {
			out = append(out, string(f.line))
		}
		t.q.done()
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// String names an approvals mode as --approvals does, for subtest names.
func (a Approvals) String() string {
	return [...]string{"ide", "both", "dashboard"}[a]
}
