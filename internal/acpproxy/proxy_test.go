package acpproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// awkward is traffic a transparent proxy must pass untouched: CRLF, blank lines, a line that is
// not JSON, lines around bufio's buffer size and past the inspection limit, no final newline.
func awkward() []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","id":7,"result":{}}` + "\r\n")
	b.WriteString("\n\n  \n")
	b.WriteString("not json at all \xff\xfe\n")
	for _, n := range []int{pumpBufSize - 1, pumpBufSize, pumpBufSize + 1, 5 << 20, maxInspect + 3<<20} {
		b.WriteString(`{"jsonrpc":"2.0","method":"_x/big","params":{"text":"`)
		b.WriteString(strings.Repeat("y", n))
		b.WriteString(`"}}` + "\n")
	}
	b.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[]}}}`)
	return b.Bytes()
}

// writeChunks writes b in random-sized pieces, so lines straddle reads.
func writeChunks(w io.WriteCloser, b []byte, seed uint64) {
	r := rand.New(rand.NewPCG(seed, seed))
	for len(b) > 0 {
		n := min(len(b), 1+r.IntN(200<<10))
		w.Write(b[:n])
		b = b[n:]
	}
	w.Close()
}

func TestProxyForwardsBytesUnchanged(t *testing.T) {
	payload := awkward()
	for _, tc := range []struct {
		name string
		p    Proxy
	}{
		{"raw", Proxy{}},
		{"line by line", Proxy{PlanUpdates: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tap := NewTap(TapOptions{})
			p := tc.p
			p.Tap = tap
			cinR, cinW := io.Pipe()
			coutR, coutW := io.Pipe()
			ainR, ainW := io.Pipe()
			aoutR, aoutW := io.Pipe()
			p.ClientIn, p.ClientOut, p.AgentIn, p.AgentOut = cinR, coutW, ainW, aoutR
			go func() {
				p.Run()
				coutW.Close()
			}()
			go writeChunks(cinW, payload, 1)
			go writeChunks(aoutW, payload, 2)
			gotAgent := make(chan []byte)
			go func() {
				b, _ := io.ReadAll(ainR)
				gotAgent <- b
			}()
			gotClient, _ := io.ReadAll(coutR)
			if !bytes.Equal(gotClient, payload) {
				t.Errorf("the IDE got %d bytes, not the agent's %d unchanged", len(gotClient), len(payload))
			}
			if b := <-gotAgent; !bytes.Equal(b, payload) {
				t.Errorf("the agent got %d bytes, not the IDE's %d unchanged", len(b), len(payload))
			}
			select { // the tap's goroutine has fed both directions' ends
			case <-p.feeder.finished:
			case <-time.After(testTimeout):
				t.Fatal("the tap never finished")
			}
			frames := tapped(tap)
			// Per direction: chunk, result, non-JSON, three lines under the limit, final plan.
			if len(frames) != 2*7 {
				t.Errorf("tapped %d frames, want 14", len(frames))
			}
			if !contains(frames, "not json at all") {
				t.Error("the line that is not JSON was not tapped (it must be flagged)")
			}
			if st := tap.Stats(); st.Oversize != 4 {
				t.Errorf("oversize = %d, want 4 (the two lines past the tap's limit, each way)", st.Oversize)
			}
		})
	}
}

func TestProxyPlanAgentTransparent(t *testing.T) {
	tap := NewTap(TapOptions{})
	r := startRun(t, &Proxy{Tap: tap})
	sess := r.ide.open(false)
	r.ide.prompt(sess, "plans progress stderr violation huge:3000000")
	if code := r.wait(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if got, want := r.agentReceived(), r.ide.sentBytes(); !bytes.Equal(got, want) {
		t.Errorf("the agent received other bytes than the IDE sent:\n got %q\nwant %q", got, want)
	}
	if !bytes.Contains(r.ide.received(), []byte("planagent: this line is not JSON\n")) {
		t.Error("the line that is not JSON did not reach the IDE")
	}
	if !strings.Contains(r.stderr.String(), "planagent: a log line") {
		t.Errorf("the agent's stderr did not pass through: %q", r.stderr.String())
	}
	if kinds := updates(t, r.ide.received()); strings.Join(kinds, " ") != "plan plan agent_message_chunk" {
		t.Errorf("the IDE got updates %v", kinds)
	}
	if frames := tapped(tap); !contains(frames, `"sessionUpdate":"plan"`) || !contains(frames, "this line is not JSON") {
		t.Errorf("the tap missed frames: %d tapped", len(frames))
	}
}

func TestProxyExitCodeAndSignals(t *testing.T) {
	t.Run("exit code", func(t *testing.T) {
		r := startRun(t, &Proxy{})
		sess := r.ide.open(false)
		r.ide.prompt(sess, "exit:3")
		if code := r.wait(); code != 3 {
			t.Errorf("exit code %d, want the agent's 3", code)
		}
	})
	t.Run("signal forwarded", func(t *testing.T) {
		sigs := make(chan os.Signal, 1)
		cin, _ := io.Pipe() // the IDE stays silent: only the signal can end the agent
		p := &Proxy{ClientIn: cin, ClientOut: io.Discard}
		done := make(chan int, 1)
		go func() {
			code, _ := (&Agent{Cmd: exec.Command(planAgent(t)), Signals: sigs}).Run(p)
			done <- code
		}()
		time.Sleep(100 * time.Millisecond) // let it start; an early signal would kill it the same way
		sigs <- syscall.SIGTERM
		select {
		case code := <-done:
			if code != 128+int(syscall.SIGTERM) {
				t.Errorf("exit code %d, want %d (killed by SIGTERM)", code, 128+int(syscall.SIGTERM))
			}
		case <-time.After(testTimeout):
			t.Fatal("SIGTERM did not reach the agent")
		}
	})
	t.Run("missing agent", func(t *testing.T) {
		code, err := (&Agent{Cmd: exec.Command("/nonexistent/agent")}).Run(&Proxy{ClientIn: strings.NewReader(""), ClientOut: io.Discard})
		if err == nil || code != 127 {
			t.Errorf("got %d, %v; want 127 and an error", code, err)
		}
	})
}

func TestProxyAgentCrashesMidTurn(t *testing.T) {
	// The agent itself, not behind tee: a wrapper that outlives it would hold its output open.
	r := startCmd(t, &Proxy{Tap: NewTap(TapOptions{})}, exec.Command(planAgent(t)))
	sess := r.ide.open(false)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": acp.MethodSessionPrompt,
		"params": map[string]any{"sessionId": sess, "prompt": []any{map[string]any{"type": "text", "text": "plans crash"}}}})
	r.ide.send(string(b))
	// The IDE's output ends (so it sees the agent is gone) and the proxy reports the crash.
	for range r.ide.lines {
	}
	select {
	case code := <-r.code:
		if code != 2 {
			t.Errorf("exit code %d, want the agent's 2", code)
		}
	case <-time.After(testTimeout):
		t.Fatal("the proxy did not end after the agent crashed")
	}
	if !bytes.Contains(r.ide.received(), []byte(`"sessionUpdate":"plan"`)) {
		t.Error("what the agent wrote before crashing was lost")
	}
}

// brokenWriter is an IDE that has gone away.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestProxyEndsAgentWhenIDEGoes(t *testing.T) {
	t.Run("IDE closes its output", func(t *testing.T) {
		r := startRun(t, &Proxy{})
		sess := r.ide.open(false)
		r.ide.prompt(sess, "plans")
		if code := r.wait(); code != 0 {
			t.Errorf("exit code %d after the IDE closed stdin, want 0", code)
		}
	})
	t.Run("IDE stops reading", func(t *testing.T) {
		cin, cinW := io.Pipe()
		defer cinW.Close()
		p := &Proxy{ClientIn: cin, ClientOut: brokenWriter{}}
		done := make(chan int, 1)
		go func() {
			code, _ := (&Agent{Cmd: exec.Command(planAgent(t)), StopGrace: time.Second}).Run(p)
			done <- code
		}()
		io.WriteString(cinW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
		select {
		case <-done:
		case <-time.After(testTimeout):
			t.Fatal("the agent kept running after the IDE stopped reading")
		}
	})
}
