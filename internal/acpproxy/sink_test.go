package acpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/client"
)

// fakeIngest is the server's ingest endpoint: it records what it is posted, answering with
// status (200 when 0).
type fakeIngest struct {
	srv    *httptest.Server
	status atomic.Int32
	posts  atomic.Int32
	mu     sync.Mutex
	msgs   []acp.Message
	query  []string
	auth   []string
}

func newFakeIngest(t *testing.T) *fakeIngest {
	f := &fakeIngest{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.posts.Add(1)
		if s := int(f.status.Load()); s != 0 {
			http.Error(w, "not now", s)
			return
		}
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.query = append(f.query, r.URL.RawQuery)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		err := acp.DecodeStream(strings.NewReader(string(body)), 0, func(_ int, msgs []acp.Message, le *acp.LineError) error {
			if le != nil {
				t.Errorf("the sink posted a line the server refuses: %v", le)
			}
			f.msgs = append(f.msgs, msgs...)
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		fmt.Fprint(w, `{"applied":1,"errors":[]}`)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeIngest) received() []acp.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]acp.Message(nil), f.msgs...)
}

func runSink(t *testing.T, s *Sink, tap *Tap) (stop func() error) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, tap) }()
	return func() error {
		tap.Close()
		defer cancel()
		return <-done
	}
}

func update(session, u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + session + `","update":` + u + `}}` + "\n"
}

func TestSinkCatchesUpWithLatestPlans(t *testing.T) {
	ingest := newFakeIngest(t)
	ingest.status.Store(http.StatusServiceUnavailable) // the dashboard is restarting
	tap := NewTap(TapOptions{MaxFrames: 50})
	sink := &Sink{API: client.New(ingest.srv.URL, "tok"), Stream: "st-1", Agent: "cmd-name",
		MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond}
	stop := runSink(t, sink, tap)
	tap.Feed(acp.ClientToAgent, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n"))
	tap.Feed(acp.AgentToClient, []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"real-agent","version":"1"}}}`+"\n"))
	for i := range 2000 {
		tap.Feed(acp.AgentToClient, []byte(update("s1", fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%d"}}`, i))))
		if i%100 == 0 {
			tap.Feed(acp.AgentToClient, []byte(update("s1", fmt.Sprintf(`{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"p","content":"version %d"}}`, i))))
		}
	}
	for ingest.posts.Load() < 5 {
		time.Sleep(time.Millisecond)
	}
	if st := tap.Stats(); st.Queued > 50+1 || st.Dropped == 0 {
		t.Errorf("while the dashboard was away the queue held %d frames and dropped %d; want it bounded", st.Queued, st.Dropped)
	}
	ingest.status.Store(0) // back
	if err := stop(); err != nil {
		t.Fatalf("the sink did not finish: %v", err)
	}
	msgs := ingest.received()
	if len(msgs) == 0 || msgs[0].Method != acp.MethodInitialize || msgs[0].Dir != acp.ClientToAgent || msgs[1].Dir != acp.AgentToClient {
		t.Fatalf("the opening frames were lost or lost their direction: %+v", msgs[:min(2, len(msgs))])
	}
	var plans []string
	for _, m := range msgs {
		if s := string(m.Raw); strings.Contains(s, "plan_update") {
			plans = append(plans, s)
		}
	}
	if len(plans) != 1 || !strings.Contains(plans[0], "version 1900") {
		t.Errorf("the dashboard got plan states %v, want just the latest (version 1900)", plans)
	}
	// The newest frame arrives last, followed only by the goodbye: the proxy ended, so its
	// session did.
	last, bye := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if !strings.Contains(string(last.Raw), `"text":"1999"`) {
		t.Errorf("the newest frame did not arrive last: %s", last.Raw)
	}
	if bye.Method != "session/close" || !strings.Contains(string(bye.Params), `"sessionId":"s1"`) || bye.Dir != acp.ClientToAgent {
		t.Errorf("the session was not closed when the proxy ended: %s", bye.Raw)
	}
	ingest.mu.Lock()
	q, auth := ingest.query[len(ingest.query)-1], ingest.auth[0]
	ingest.mu.Unlock()
	if !strings.Contains(q, "stream=st-1") || !strings.Contains(q, "agent=real-agent") || auth != "Bearer tok" {
		t.Errorf("posted with query %q and %q", q, auth)
	}
}

func TestSinkDropsRefusedBatches(t *testing.T) {
	ingest := newFakeIngest(t)
	ingest.status.Store(http.StatusBadRequest)
	tap := NewTap(TapOptions{})
	stop := runSink(t, &Sink{API: client.New(ingest.srv.URL, ""), MinBackoff: time.Millisecond}, tap)
	tap.Feed(acp.AgentToClient, []byte(update("s1", `{"sessionUpdate":"plan","entries":[]}`)))
	if err := stop(); err != nil {
		t.Fatalf("a refused batch was retried until the deadline: %v", err)
	}
	if n := ingest.posts.Load(); n != 1 {
		t.Errorf("%d posts, want 1: the server said no", n)
	}
}

func TestSinkFlagsProtocolViolations(t *testing.T) {
	ingest := newFakeIngest(t)
	tap := NewTap(TapOptions{})
	stop := runSink(t, &Sink{API: client.New(ingest.srv.URL, "")}, tap)
	tap.Feed(acp.AgentToClient, []byte("Starting agent v1.2...\n")) // a banner before any session
	tap.Feed(acp.AgentToClient, []byte(`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"sess-9"}}`+"\n"))
	tap.Feed(acp.AgentToClient, []byte("panic: \xff oops\n"))
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var flagged []string
	for _, m := range ingest.received() {
		if m.Method != acp.MethodSessionUpdate {
			continue
		}
		n, _, err := acp.DecodeSessionNotification(m.Params)
		if err != nil || n.SessionID != "sess-9" || n.Update.Kind != ProtocolViolation || m.Dir != acp.AgentToClient {
			t.Errorf("violation reported as %s (%v)", m.Raw, err)
		}
		flagged = append(flagged, string(n.Update.Raw))
	}
	if len(flagged) != 2 || !strings.Contains(flagged[0], "Starting agent") || !strings.Contains(flagged[1], "panic: \uFFFD oops") {
		t.Errorf("flagged %v, want the banner and the panic, in order", flagged)
	}
}

func TestSinkSurvivesServerDown(t *testing.T) {
	// Nothing listens: connection refused, retried until the tap closes and the deadline ends it.
	tap := NewTap(TapOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	tap.Feed(acp.AgentToClient, []byte(update("s1", `{"sessionUpdate":"plan","entries":[]}`)))
	tap.Close()
	err := (&Sink{API: client.New("http://127.0.0.1:1", ""), MinBackoff: time.Millisecond}).Run(ctx, tap)
	if err != context.DeadlineExceeded {
		t.Errorf("Run = %v, want the deadline", err)
	}
	if st := tap.Stats(); st.Queued != 1 {
		t.Errorf("the undelivered plan is gone from the queue: %+v", st)
	}
}

// TestSinkSaysWhenPlanStatesWereSkipped: a plan frame that replaced older states in the queue
// is followed by the proxy's note, which the server keeps as the session's activity; Cursor's
// own methods are not posted (the server refuses them).
func TestSinkSaysWhenPlanStatesWereSkipped(t *testing.T) {
	s := &Sink{API: client.New("http://unused", "")}
	s.defaults()
	f := testPlanFrame("s1", "tasks", 3)
	f.skipped = 2
	cursor := newFrame(acp.AgentToClient, time.Time{}, []byte(`{"jsonrpc":"2.0","method":"cursor/update_todos","params":{"todos":[]}}`))
	body, _ := s.encode([]frame{f, cursor})
	msgs, err := acp.DecodeLine(bytes.TrimSpace(bytes.SplitN(body, []byte("\n"), 3)[1]))
	if err != nil || len(msgs) != 1 {
		t.Fatalf("no note after the plan: %v\n%s", err, body)
	}
	n, _, err := acp.DecodeSessionNotification(msgs[0].Params)
	if err != nil || n.SessionID != "s1" || n.Update.Kind != CoalescedUpdate || !strings.Contains(string(n.Update.Raw), `"skipped":2`) ||
		!strings.Contains(string(n.Update.Raw), `"planId":"tasks"`) {
		t.Errorf("note %s (%v)", msgs[0].Raw, err)
	}
	if bytes.Contains(body, []byte("cursor/update_todos")) {
		t.Errorf("a Cursor method was posted:\n%s", body)
	}
}

// When the proxy ends, the dashboard hears that each session it was told of ended, once; a
// session whose frames the dashboard refused is not named.
func TestSinkClosesSessionsWhenTheProxyEnds(t *testing.T) {
	ingest := newFakeIngest(t)
	tap := NewTap(TapOptions{})
	sink := &Sink{API: client.New(ingest.srv.URL, "tok"), Stream: "st-1", MinBackoff: time.Millisecond}
	stop := runSink(t, sink, tap)
	for _, s := range []string{"s2", "s1", "s2"} {
		tap.Feed(acp.AgentToClient, []byte(update(s, `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`)))
	}
	for len(ingest.received()) < 3 {
		time.Sleep(time.Millisecond) // polling for the posts, not an assertion on time
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var closed []string
	for _, m := range ingest.received() {
		if m.Method == "session/close" {
			var p struct{ SessionID string }
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			closed = append(closed, p.SessionID)
		}
	}
	if strings.Join(closed, ",") != "s1,s2" {
		t.Fatalf("closed %v, want s1,s2", closed)
	}
}

// TestCursorMethod: a method is Cursor's own by its decoded name, whichever way it is spelled.
func TestCursorMethod(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want bool
	}{
		{`"cursor/update_todos"`, true},
		{`"\u0063ursor/ask_question"`, true},
		{`"cursor/"`, true},
		{`"session/update"`, false},
		{`"session/cursor/x"`, false},
		{`"\u0073ession/update"`, false},
		{``, false},
	} {
		if got := cursorMethod([]byte(c.raw)); got != c.want {
			t.Errorf("cursorMethod(%s) = %v, want %v", c.raw, got, c.want)
		}
	}
}
