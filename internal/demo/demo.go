// Package demo is a scripted agent: it speaks realistic ACP traffic (initialize, sessions,
// prompts, messages, tool calls, v1 plans, plan_update items/markdown/file, plan removal) and
// posts it to a plandash server's ingest API, the same path real traffic takes.
package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/client"
)

// Agent posts scripted sessions to a server until its context ends.
type Agent struct {
	API *client.Client // the server
	Dir string         // where file plans are written (an allowed root of the server)
	// PlansDir is the shared plans directory the demo's "architect" writes to; "" writes none.
	PlansDir string
	Speed    float64 // 1 is real-time-ish; larger is faster
	Log      io.Writer

	mu   sync.Mutex
	open []string // the hook sessions started and not ended yet (waits.go)
}

// Run plays the scripted agents side by side, over and over.
func (a *Agent) Run(ctx context.Context) error {
	if a.Speed <= 0 {
		a.Speed = 1
	}
	if a.API == nil {
		return errors.New("demo: no server to post to")
	}
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		return err
	}
	if err := a.endStale(ctx); err != nil {
		return err
	}
	go a.sharedRelease(ctx)
	errc := make(chan error, len(scripts))
	for i, sc := range scripts {
		go func() { errc <- a.loop(ctx, i, sc) }()
	}
	var first error
	for range scripts {
		if err := <-errc; err != nil && first == nil && ctx.Err() == nil {
			first = err
		}
	}
	return first
}

func (a *Agent) loop(ctx context.Context, n int, sc script) error {
	// Stagger the agents so the page fills up one by one.
	if !a.sleep(ctx, time.Duration(n)*1500*time.Millisecond) {
		return nil
	}
	var finished []*run // ended rounds still on the overview, oldest first
	for round := 1; ; round++ {
		r := &run{a: a, ctx: ctx, stream: fmt.Sprintf("demo-%d-%d-%d", n, round, time.Now().UnixNano()), n: n, round: round}
		if err := sc(r); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if !a.sleep(ctx, a.restBetweenRounds()) {
			return nil
		}
		if r.session != "" {
			r.send(req("session/close", map[string]any{"sessionId": r.session}))
		}
		// A demo left running keeps one ended round per agent on the overview, beside the live
		// one, instead of piling up dozens: older rounds retire (their plans are removed, so
		// they leave the overview and stay on the sessions page).
		finished = append(finished, r)
		for len(finished) > keptRounds {
			finished[0].retire()
			finished = finished[1:]
		}
	}
}

// keptRounds is how many ended rounds of each scripted agent stay on the overview.
const keptRounds = 1

// restBetweenRounds is the pause between an agent's rounds: a person watching sees a round end
// and the next one begin, at a pace that reads as work rather than a loop.
func (a *Agent) restBetweenRounds() time.Duration {
	return 20*time.Second + time.Duration(rand.Int64N(int64(20*time.Second)))
}

func (a *Agent) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(time.Duration(float64(d) / a.Speed))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// run is one scripted session.
type run struct {
	a       *Agent
	ctx     context.Context
	stream  string
	n       int
	round   int
	session string
	id      int
	err     error
	plans   []string // the plan ids this run showed, to retire them
	said    bool     // the agent has spoken in this run: the next message starts a new paragraph
}

type msg map[string]any

func req(method string, params any) msg {
	return msg{"jsonrpc": "2.0", "method": method, "params": params}
}

// send posts messages as one NDJSON batch. Requests get the next id of this run.
func (r *run) send(msgs ...msg) {
	if r.err != nil {
		return
	}
	var body bytes.Buffer
	for _, m := range msgs {
		if _, isReq := m["id"]; !isReq && m["method"] != nil && m["method"] != "session/update" && m["method"] != "session/cancel" {
			r.id++
			m["id"] = r.id
		}
		b, _ := json.Marshal(m)
		body.Write(b)
		body.WriteByte('\n')
	}
	if _, err := r.a.API.Ingest(r.ctx, &body, client.IngestOptions{Stream: r.stream}); err != nil {
		r.err = fmt.Errorf("demo: %w", err)
	}
}

func (r *run) reply(result any) msg {
	return msg{"jsonrpc": "2.0", "id": r.id, "result": result}
}

// start opens a session: initialize, session/new and their responses, then the prompt.
func (r *run) start(agent, title, cwd, prompt string, planCapable bool) {
	caps := map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true}
	if planCapable {
		caps["plan"] = map[string]any{}
	}
	r.send(req("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps,
		"clientInfo": map[string]any{"name": "zed", "title": "Zed", "version": "0.200.0"}}))
	r.send(r.reply(map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{"loadSession": true},
		"agentInfo": map[string]any{"name": agent, "title": title, "version": "1.0.0"}, "authMethods": []any{}}))
	r.send(req("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}))
	r.session = fmt.Sprintf("sess_%s_%d_%04x", agent, r.round, rand.IntN(1<<16))
	r.send(r.reply(map[string]any{"sessionId": r.session}))
	r.send(req("session/prompt", map[string]any{"sessionId": r.session, "prompt": []any{map[string]any{"type": "text", "text": prompt}}}))
}

func (r *run) update(u msg) {
	switch u["sessionUpdate"] {
	case "plan":
		r.showed("main")
	case "plan_update":
		if p, ok := u["plan"].(msg); ok {
			if id, ok := p["planId"].(string); ok {
				r.showed(id)
			}
		}
	}
	r.send(req("session/update", map[string]any{"sessionId": r.session, "update": u}))
}

// showed records a plan id the run put on the page.
func (r *run) showed(id string) {
	for _, p := range r.plans {
		if p == id {
			return
		}
	}
	r.plans = append(r.plans, id)
}

// retire removes the run's plans, taking its ended session off the overview.
func (r *run) retire() {
	r.err = nil
	for _, id := range r.plans {
		r.send(req("session/update", map[string]any{"sessionId": r.session, "update": msg{"sessionUpdate": "plan_removed", "planId": id}}))
	}
}

// say streams one message of the agent in chunks, as agents do; a later message of the same run
// starts a new paragraph rather than running on from the last one's full stop.
func (r *run) say(text string) {
	if r.said {
		text = "\n\n" + text
	}
	r.said = true
	for _, word := range splitKeep(text) {
		r.update(msg{"sessionUpdate": "agent_message_chunk", "content": msg{"type": "text", "text": word}})
	}
}

func (r *run) pause(d time.Duration) bool {
	jitter := time.Duration(rand.Int64N(int64(d)/3 + 1))
	return r.err == nil && r.a.sleep(r.ctx, d+jitter)
}

func (r *run) tool(id, title, kind string, input any) {
	r.update(msg{"sessionUpdate": "tool_call", "toolCallId": id, "title": title, "kind": kind, "status": "pending", "rawInput": input})
	r.update(msg{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "in_progress"})
}

func (r *run) toolDone(id, output string) {
	r.update(msg{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "completed",
		"content": []any{msg{"type": "content", "content": msg{"type": "text", "text": output}}}})
}

func (r *run) writeFile(name, content string) string {
	path := filepath.Join(r.a.Dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil && r.err == nil {
		r.err = err
	}
	return "file://" + path
}

func splitKeep(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' && i-start > 12 {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func (a *Agent) logOut() io.Writer {
	if a.Log != nil {
		return a.Log
	}
	return io.Discard
}
