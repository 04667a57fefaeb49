package acpproxy

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
)

// fakeBroker stands in for the dashboard: tests take its offers and answer them.
type fakeBroker struct {
	offers chan brokerOffer
	mu     sync.Mutex
	log    []string // "offer ID" and "resolved ID by/outcome", in call order
}

type brokerOffer struct {
	req    PermissionRequest
	answer func(acp.PermissionOutcome) error
}

func newFakeBroker() *fakeBroker { return &fakeBroker{offers: make(chan brokerOffer, 16)} }

func (b *fakeBroker) Offer(req PermissionRequest, answer func(acp.PermissionOutcome) error) {
	b.mu.Lock()
	b.log = append(b.log, "offer "+string(req.ID))
	b.mu.Unlock()
	b.offers <- brokerOffer{req, answer}
}

func (b *fakeBroker) Resolved(id json.RawMessage, r Resolution) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.log = append(b.log, fmt.Sprintf("resolved %s by %s: %s %s", id, r.By, r.Outcome.Outcome, r.Outcome.OptionID))
}

func (b *fakeBroker) calls() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.log, "; ")
}

// waitCalls waits until the broker has had n calls (they arrive on the proxy's own goroutine).
func (b *fakeBroker) waitCalls(t *testing.T, n int) string {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		b.mu.Lock()
		got := len(b.log)
		b.mu.Unlock()
		if got >= n || time.Now().After(deadline) {
			return b.calls()
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (b *fakeBroker) offer(t *testing.T) brokerOffer {
	t.Helper()
	select {
	case o := <-b.offers:
		return o
	case <-time.After(testTimeout):
		t.Fatal("nothing was offered to the dashboard")
		return brokerOffer{}
	}
}

var allow = acp.PermissionOutcome{Outcome: "selected", OptionID: "allow"}

// promptUntilDone sends a prompt and reads until its response, calling on for each message.
func promptUntilDone(t *testing.T, c *ide, session, text string, on func(acp.Message)) {
	t.Helper()
	c.nextID++
	id := c.nextID
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": acp.MethodSessionPrompt,
		"params": map[string]any{"sessionId": session, "prompt": []any{map[string]any{"type": "text", "text": text}}}})
	c.send(string(b))
	for {
		m, ok := c.next()
		if !ok {
			t.Fatal("the proxy closed before the prompt ended")
		}
		if m.IsResponse() && string(m.ID) == fmt.Sprint(id) {
			return
		}
		on(m)
	}
}

func TestProxyPermissionDashboardAnswersFirst(t *testing.T) {
	broker := newFakeBroker()
	r := startRun(t, &Proxy{Approvals: ApprovalsBoth, Broker: broker})
	sess := r.ide.open(false)
	var cancelled bool
	promptUntilDone(t, r.ide, sess, "permission", func(m acp.Message) {
		switch {
		case m.Method == acp.MethodRequestPermission:
			// The IDE shows it and waits for its user; the dashboard is quicker.
			o := broker.offer(t)
			if !o.req.InIDE || o.req.SessionID != sess || len(o.req.Options) != 2 {
				t.Errorf("offered %+v", o.req)
			}
			if err := o.answer(acp.PermissionOutcome{Outcome: "selected", OptionID: "nope"}); err == nil {
				t.Error("an option the agent did not offer was accepted")
			}
			if err := o.answer(allow); err != nil {
				t.Fatalf("the dashboard's answer: %v", err)
			}
			if err := o.answer(allow); !errors.Is(err, ErrPermissionResolved) {
				t.Errorf("a second answer: %v, want ErrPermissionResolved", err)
			}
		case m.Method == acp.MethodCancelRequest:
			cancelled = true
			// The user clicks in the IDE anyway: the late reply must not reach the agent.
			r.ide.send(`{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"reject"}}}`)
		}
	})
	r.wait()
	if !cancelled {
		t.Error("the IDE got no $/cancel_request for its copy")
	}
	if got := string(r.agentReceived()); strings.Contains(got, `"reject"`) || strings.Count(got, `"result"`) != 1 {
		t.Errorf("the agent got other answers than the dashboard's one:\n%s", got)
	}
	if !strings.Contains(string(r.ide.received()), "permission: selected allow") {
		t.Error("the agent did not act on the dashboard's answer")
	}
	if got, want := broker.waitCalls(t, 2), "offer 1; resolved 1 by dashboard: selected allow"; got != want {
		t.Errorf("broker calls: %s\nwant: %s", got, want)
	}
}

func TestProxyPermissionIDEAnswersFirst(t *testing.T) {
	broker := newFakeBroker()
	r := startRun(t, &Proxy{Approvals: ApprovalsBoth, Broker: broker})
	r.ide.answer = func(id, _ json.RawMessage) string { return `{"outcome":{"outcome":"selected","optionId":"reject"}}` }
	sess := r.ide.open(false)
	r.ide.prompt(sess, "permission")
	r.wait()
	o := broker.offer(t)
	if err := o.answer(allow); !errors.Is(err, ErrPermissionResolved) {
		t.Errorf("the dashboard answering after the IDE: %v, want ErrPermissionResolved", err)
	}
	if !strings.Contains(string(r.ide.received()), "permission: selected reject") {
		t.Error("the agent did not get the IDE's answer")
	}
	if got, want := broker.waitCalls(t, 2), "offer 1; resolved 1 by ide: selected reject"; got != want {
		t.Errorf("broker calls: %s\nwant: %s", got, want)
	}
}

func TestProxyPermissionDashboardOnly(t *testing.T) {
	broker := newFakeBroker()
	r := startRun(t, &Proxy{Approvals: ApprovalsDashboard, Broker: broker})
	r.ide.answer = func(id, _ json.RawMessage) string {
		t.Error("the IDE was asked although approvals go to the dashboard only")
		return ""
	}
	sess := r.ide.open(false)
	go func() {
		if err := broker.offer(t).answer(allow); err != nil {
			t.Errorf("answer: %v", err)
		}
	}()
	r.ide.prompt(sess, "permission")
	r.wait()
	if strings.Contains(string(r.ide.received()), acp.MethodRequestPermission) {
		t.Error("the IDE saw the permission request")
	}
	if !strings.Contains(string(r.ide.received()), "permission: selected allow") {
		t.Error("the agent did not get the dashboard's answer")
	}
}

// pipePeers runs p between a fake IDE and a fake agent that the test drives line by line.
type pipePeers struct {
	ideW, agentW io.Writer
	ide, agent   *bufio.Reader
}

func startPipes(t *testing.T, p *Proxy) *pipePeers {
	cinR, cinW := io.Pipe()
	coutR, coutW := io.Pipe()
	ainR, ainW := io.Pipe()
	aoutR, aoutW := io.Pipe()
	p.ClientIn, p.ClientOut, p.AgentIn, p.AgentOut = cinR, coutW, ainW, aoutR
	go func() {
		p.Run()
		coutW.Close()
	}()
	t.Cleanup(func() { cinW.Close(); aoutW.Close() })
	return &pipePeers{ideW: cinW, agentW: aoutW, ide: bufio.NewReader(coutR), agent: bufio.NewReader(ainR)}
}

func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line := make(chan string, 1)
	go func() {
		s, _ := r.ReadString('\n')
		line <- strings.TrimSuffix(s, "\n")
	}()
	select {
	case s := <-line:
		return s
	case <-time.After(testTimeout):
		t.Fatal("nothing arrived")
		return ""
	}
}

const permReq = `{"jsonrpc":"2.0","id":"p-1","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"c1"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}`

func TestProxyPermissionCancellations(t *testing.T) {
	t.Run("turn cancelled while only the dashboard is asked", func(t *testing.T) {
		broker := newFakeBroker()
		pp := startPipes(t, &Proxy{Approvals: ApprovalsDashboard, Broker: broker})
		io.WriteString(pp.agentW, permReq+"\n")
		o := broker.offer(t)
		io.WriteString(pp.ideW, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`+"\n")
		if got, want := readLine(t, pp.agent), `{"id":"p-1","jsonrpc":"2.0","result":{"outcome":{"outcome":"cancelled"}}}`; got != want {
			t.Errorf("the agent got %s, want %s", got, want)
		}
		if got := readLine(t, pp.agent); !strings.Contains(got, acp.MethodSessionCancel) {
			t.Errorf("then %s, want the session/cancel", got)
		}
		if err := o.answer(allow); !errors.Is(err, ErrPermissionResolved) {
			t.Errorf("answering a cancelled request: %v", err)
		}
		if got, want := broker.waitCalls(t, 2), `offer "p-1"; resolved "p-1" by proxy: cancelled `; got != want {
			t.Errorf("broker calls: %s\nwant: %s", got, want)
		}
	})
	t.Run("agent withdraws a request only the dashboard has", func(t *testing.T) {
		broker := newFakeBroker()
		pp := startPipes(t, &Proxy{Approvals: ApprovalsDashboard, Broker: broker})
		io.WriteString(pp.agentW, permReq+"\n")
		broker.offer(t)
		io.WriteString(pp.agentW, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"p-1"}}`+"\n")
		if got, want := readLine(t, pp.agent), `{"error":{"code":-32800,"message":"Request cancelled"},"id":"p-1","jsonrpc":"2.0"}`; got != want {
			t.Errorf("the agent got %s, want %s", got, want)
		}
		io.WriteString(pp.agentW, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"next"}}}}`+"\n")
		if got := readLine(t, pp.ide); !strings.Contains(got, `"next"`) {
			t.Errorf("the IDE got %s: the request or its withdrawal leaked", got)
		}
	})
	t.Run("IDE answers before the dashboard was told", func(t *testing.T) {
		broker := &slowBroker{fakeBroker: newFakeBroker(), release: make(chan struct{})}
		pp := startPipes(t, &Proxy{Approvals: ApprovalsBoth, Broker: broker})
		io.WriteString(pp.agentW, permReq+"\n")
		readLine(t, pp.ide)
		io.WriteString(pp.ideW, `{"jsonrpc":"2.0","id":"p-1","result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`+"\n")
		if got := readLine(t, pp.agent); !strings.Contains(got, `"allow"`) {
			t.Errorf("the agent got %s", got)
		}
		close(broker.release)
		broker.offer(t)
		if got, want := broker.waitCalls(t, 2), `offer "p-1"; resolved "p-1" by ide: selected allow`; got != want {
			t.Errorf("broker calls: %s\nwant: %s (resolved never before offered)", got, want)
		}
	})
}

// slowBroker takes its time to accept an offer, as a dashboard on a slow link might.
type slowBroker struct {
	*fakeBroker
	release chan struct{}
}

func (b *slowBroker) Offer(req PermissionRequest, answer func(acp.PermissionOutcome) error) {
	<-b.release
	b.fakeBroker.Offer(req, answer)
}
