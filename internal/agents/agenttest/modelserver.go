// Package agenttest runs the coding agents' real CLIs (Claude Code, Codex, …) against a scripted
// model server on loopback, so end-to-end tests see the agents' real hooks, transcripts and
// rollout files without a network or an account. It is used only by tests.
//
// A test starts a ModelServer, scripts what the "model" answers (a queue of Turns, or a
// Responder that looks at the request), starts an agent CLI pointed at the server, and then
// asserts on what the hooks recorded and on the requests the CLI sent back (tool results,
// hook messages). See shared/spec/agents.md §11 for the recipes this follows.
//
//	srv := agenttest.NewModelServer(t)
//	rec := filepath.Join(t.TempDir(), "events.jsonl")
//	c := agenttest.NewClaude(t, srv, map[string]any{"hooks": map[string]any{
//		"PostToolUse": []any{map[string]any{"matcher": "TaskCreate", "hooks": []any{
//			map[string]any{"type": "command", "command": agenttest.RecordHook(rec, "")}}}}}})
//	srv.Script(agenttest.Turn{ToolUse: &agenttest.ToolUse{Name: "TaskCreate", Input: …}},
//		agenttest.Turn{Text: "done"})
//	res := c.Print(3*time.Minute, "plan it", "--model", "claude-sonnet-4-5")
//	events := agenttest.HookEvents(t, rec)
//
// The CLIs come from scripts/agent-clis.sh (a cache outside the repository). A test using one
// is skipped when it is not installed, unless PLANDASH_AGENT_TESTS=1 (CI), which installs it;
// PLANDASH_CLAUDE, PLANDASH_CODEX, PLANDASH_GEMINI and PLANDASH_OPENCODE name binaries to use
// instead. Interactive CLIs run under tmux (StartTmux), each on its own tmux server.
package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// ToolUse is one tool call the scripted model makes.
type ToolUse struct {
	// Name is the tool's name as the CLI offers it (e.g. "TaskCreate", "update_plan").
	Name string
	// Input is marshalled to JSON as the call's arguments; nil means {}.
	Input any
	// ID is the call id; empty means a fresh unique one, since CLIs treat a repeated id as
	// the same call.
	ID string
}

// Turn is one answer of the scripted model: optional text, then optional tool calls. A turn
// with tool calls ends with stop reason "tool_use" (the CLI runs them and asks again); one
// without ends the agent's turn.
type Turn struct {
	Text     string
	ToolUse  *ToolUse
	ToolUses []ToolUse // further calls in the same answer, after ToolUse
}

// calls returns the turn's tool calls in order.
func (t Turn) calls() []ToolUse {
	var out []ToolUse
	if t.ToolUse != nil {
		out = append(out, *t.ToolUse)
	}
	return append(out, t.ToolUses...)
}

// Request is one request a CLI made to the model server, recorded whole.
type Request struct {
	// Seq numbers requests in arrival order, from 1.
	Seq int
	// API is "anthropic", "openai", "gemini" or "" for a path the server does not speak.
	API string
	// Method, Path and Query are the HTTP request line.
	Method, Path, Query string
	// Body is the raw request body.
	Body []byte
	// Side is true for requests that are not part of the agent loop (title generation, quota
	// probes, token counting…): they got a short canned answer and did not consume the script.
	Side bool
	// Answer is the turn the server answered with (nil for side requests and non-model paths).
	Answer *Turn
}

// JSON decodes the body into a generic map (nil when it is not a JSON object).
func (r Request) JSON() map[string]any {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil {
		return nil
	}
	return m
}

// Responder picks the answer to a main-loop request. It is called with the server's lock
// released; ok=false falls back to the queued script.
type Responder func(r Request) (turn Turn, ok bool)

// ModelServer is a scripted model endpoint speaking Anthropic's Messages API, OpenAI's
// Responses API and Gemini's generateContent API over loopback HTTP.
type ModelServer struct {
	// URL is the server's base address, e.g. http://127.0.0.1:PORT (no trailing slash).
	URL string

	t    testing.TB
	srv  *httptest.Server
	mu   sync.Mutex
	cond *sync.Cond // signalled on every recorded request, for WaitRequest

	script    []Turn
	responder Responder
	reqs      []Request
	nextID    int
	toolNames map[string]string // tool-use id → tool name, to label results
}

// NewModelServer starts a scripted model server on loopback; it is closed in t.Cleanup.
func NewModelServer(t testing.TB) *ModelServer {
	t.Helper()
	m := &ModelServer{t: t, toolNames: map[string]string{}}
	m.cond = sync.NewCond(&m.mu)
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	m.URL = m.srv.URL
	t.Cleanup(func() {
		// A CLI killed mid-stream can leave a connection open; don't wait for it.
		m.srv.CloseClientConnections()
		m.srv.Close()
	})
	return m
}

// Script appends turns to the queue the main-loop requests consume, in order.
func (m *ModelServer) Script(turns ...Turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.script = append(m.script, turns...)
}

// Respond sets a function that answers main-loop requests before the queue is consulted.
func (m *ModelServer) Respond(f Responder) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.responder = f
}

// Requests returns a copy of every request recorded so far.
func (m *ModelServer) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.reqs...)
}

// MainRequests returns the recorded requests that were part of the agent loop.
func (m *ModelServer) MainRequests() []Request {
	var out []Request
	for _, r := range m.Requests() {
		if !r.Side && r.Answer != nil {
			out = append(out, r)
		}
	}
	return out
}

// WaitRequest waits up to timeout for a recorded request (already recorded or future) that
// satisfies match, and returns it; on timeout it fails the test listing what did arrive.
func (m *ModelServer) WaitRequest(timeout time.Duration, match func(Request) bool) Request {
	m.t.Helper()
	r, ok := m.waitRequest(timeout, match)
	if !ok {
		m.t.Fatalf("no matching model request within %v; got:\n%s", timeout, m.Summary())
	}
	return r
}

func (m *ModelServer) waitRequest(timeout time.Duration, match func(Request) bool) (Request, bool) {
	// sync.Cond has no timeout: a timer broadcasts once the deadline passes.
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		m.mu.Lock()
		m.cond.Broadcast()
		m.mu.Unlock()
	})
	defer timer.Stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	for seen := 0; ; {
		for ; seen < len(m.reqs); seen++ {
			if match(m.reqs[seen]) {
				return m.reqs[seen], true
			}
		}
		if !time.Now().Before(deadline) {
			return Request{}, false
		}
		m.cond.Wait()
	}
}

// Summary describes every recorded request on one line each, for failure messages.
func (m *ModelServer) Summary() string {
	var b strings.Builder
	for _, r := range m.Requests() {
		kind := "main"
		if r.Side {
			kind = "side"
		} else if r.Answer == nil {
			kind = "other"
		}
		body := string(r.Body)
		if len(body) > 300 {
			body = body[:300] + "…"
		}
		fmt.Fprintf(&b, "#%d %s %s %s?%s: %s\n", r.Seq, kind, r.Method, r.Path, r.Query, body)
	}
	return b.String()
}

// ToolName returns the name of the scripted tool call with this id ("" if unknown).
func (m *ModelServer) ToolName(id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.toolNames[id]
}

// serve records the request and hands it to the API it belongs to.
func (m *ModelServer) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: body}
	switch {
	case strings.HasSuffix(req.Path, "/messages/count_tokens"):
		req.API, req.Side = "anthropic", true
		m.record(req)
		writeJSON(w, map[string]any{"input_tokens": 1 + len(body)/4})
	case strings.HasSuffix(req.Path, "/messages") && r.Method == http.MethodPost:
		req.API = "anthropic"
		m.anthropic(w, req)
	case strings.HasSuffix(req.Path, "/responses") && r.Method == http.MethodPost:
		req.API = "openai"
		m.openai(w, req)
	case strings.Contains(req.Path, ":streamGenerateContent") || strings.Contains(req.Path, ":generateContent"):
		req.API = "gemini"
		m.gemini(w, req)
	case strings.Contains(req.Path, ":countTokens"):
		req.API, req.Side = "gemini", true
		m.record(req)
		writeJSON(w, map[string]any{"totalTokens": 1 + len(body)/4})
	default:
		// Model lists, health probes and the like: record them so a test can see what the CLI
		// tried, and answer 404 so the CLI falls back to its defaults.
		m.record(req)
		http.NotFound(w, r)
	}
}

// next records a main-loop or side request and returns the turn to answer it with.
func (m *ModelServer) next(req Request) Turn {
	if req.Side {
		m.record(req)
		return Turn{Text: "ok"}
	}
	m.mu.Lock()
	responder := m.responder
	m.mu.Unlock()
	var turn Turn
	ok := false
	if responder != nil {
		turn, ok = responder(req)
	}
	m.mu.Lock()
	if !ok && len(m.script) > 0 {
		turn, m.script, ok = m.script[0], m.script[1:], true
	}
	if !ok {
		// The script ran out: end the agent's turn rather than hang or error, so a test that
		// under-scripted fails on its assertions, with the request log, not on a stuck CLI.
		turn = Turn{Text: "(script exhausted)"}
	}
	if turn.ToolUse != nil {
		tu := *turn.ToolUse
		turn.ToolUse = &tu
		m.assignID(turn.ToolUse)
	}
	turn.ToolUses = append([]ToolUse(nil), turn.ToolUses...)
	for i := range turn.ToolUses {
		m.assignID(&turn.ToolUses[i])
	}
	req.Answer = &turn
	m.recordLocked(req)
	m.mu.Unlock()
	return turn
}

// assignID gives a call a unique id (when the script left it empty) and remembers its name.
// Callers hold m.mu.
func (m *ModelServer) assignID(tu *ToolUse) {
	if tu.ID == "" {
		m.nextID++
		tu.ID = fmt.Sprintf("toolu_agenttest_%04d", m.nextID)
	}
	m.toolNames[tu.ID] = tu.Name
}

func (m *ModelServer) record(req Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recordLocked(req)
}

func (m *ModelServer) recordLocked(req Request) {
	req.Seq = len(m.reqs) + 1
	m.reqs = append(m.reqs, req)
	m.cond.Broadcast()
}

// inputJSON marshals a tool call's input; a value that cannot be marshalled is a test bug.
func (m *ModelServer) inputJSON(tu ToolUse) string {
	if tu.Input == nil {
		return "{}"
	}
	if raw, ok := tu.Input.(json.RawMessage); ok {
		return string(raw)
	}
	if s, ok := tu.Input.(string); ok {
		return s
	}
	b, err := json.Marshal(tu.Input)
	if err != nil {
		m.t.Errorf("agenttest: tool %s input: %v", tu.Name, err)
		return "{}"
	}
	return string(b)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes Server-Sent Events and flushes after each, as the real APIs stream.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes one event; name "" writes a data-only event (Gemini's style).
func (s *sse) event(name string, data any) {
	var b bytes.Buffer
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	j, _ := json.Marshal(data)
	fmt.Fprintf(&b, "data: %s\n\n", j)
	_, _ = s.w.Write(b.Bytes())
	if s.f != nil {
		s.f.Flush()
	}
}
