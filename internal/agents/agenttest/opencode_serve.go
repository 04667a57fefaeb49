package agenttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// OpenCodeServer is a running `opencode serve` (headless server) with a subscription to its
// event stream (GET /event), which every event is recorded from.
type OpenCodeServer struct {
	// URL is the server's base address.
	URL string

	t      testing.TB
	mu     sync.Mutex
	cond   *sync.Cond
	events []OpenCodeEvent
}

// OpenCodeEvent is one event of the server's /event stream.
type OpenCodeEvent struct {
	Type       string          `json:"type"`
	Properties json.RawMessage `json:"properties"`
}

var listeningRE = regexp.MustCompile(`https?://[0-9.:\[\]a-z]+`)

// Serve starts `opencode serve` on a free loopback port and subscribes to its events; the
// server is stopped in t.Cleanup.
func (o *OpenCode) Serve() *OpenCodeServer {
	o.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	argv := append(append([]string(nil), o.Argv...), "serve", "--port", "0", "--hostname", "127.0.0.1")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = o.Dir, o.Env
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		o.t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		o.t.Fatal(err)
	}
	o.t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	// The server prints "opencode server listening on http://127.0.0.1:PORT".
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := listeningRE.FindString(sc.Text()); u != "" {
				found <- u
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	s := &OpenCodeServer{t: o.t}
	s.cond = sync.NewCond(&s.mu)
	select {
	case s.URL = <-found:
	case <-time.After(2 * time.Minute):
		o.t.Fatalf("agenttest: opencode serve printed no address within 2m; stderr:\n%s", stderr.String())
	}
	s.subscribe(ctx)
	return s
}

// subscribe reads /event in the background until ctx ends, recording each event.
func (s *OpenCodeServer) subscribe(ctx context.Context) {
	s.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/event", nil)
	if err != nil {
		s.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("agenttest: opencode /event: %v", err)
	}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev OpenCodeEvent
			if json.Unmarshal([]byte(data), &ev) != nil {
				continue
			}
			s.mu.Lock()
			s.events = append(s.events, ev)
			s.cond.Broadcast()
			s.mu.Unlock()
		}
	}()
}

// Events returns a copy of the events received so far.
func (s *OpenCodeServer) Events() []OpenCodeEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]OpenCodeEvent(nil), s.events...)
}

// WaitEvent waits up to timeout for an event of type typ satisfying match (nil: any), or
// fails the test listing the event types seen.
func (s *OpenCodeServer) WaitEvent(timeout time.Duration, typ string, match func(OpenCodeEvent) bool) OpenCodeEvent {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for seen := 0; ; {
		for ; seen < len(s.events); seen++ {
			ev := s.events[seen]
			if ev.Type == typ && (match == nil || match(ev)) {
				return ev
			}
		}
		if !time.Now().Before(deadline) {
			var types []string
			for _, ev := range s.events {
				types = append(types, ev.Type)
			}
			s.t.Fatalf("agenttest: no %s event within %v; saw %v", typ, timeout, types)
		}
		s.cond.Wait()
	}
}

// Do sends a JSON request to the server and decodes a JSON answer into out (nil: ignore).
func (s *OpenCodeServer) Do(method, path string, body, out any) {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, r)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("agenttest: opencode %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		s.t.Fatalf("agenttest: opencode %s %s: %s\n%s", method, path, resp.Status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			s.t.Fatalf("agenttest: opencode %s %s: %v\n%s", method, path, err, b)
		}
	}
}

// Prompt creates a session and sends it a prompt without waiting for the answer (the
// server's prompt_async); it returns the session id. agent "" is the default agent.
func (s *OpenCodeServer) Prompt(agent, text string) string {
	s.t.Helper()
	var sess struct {
		ID string `json:"id"`
	}
	s.Do(http.MethodPost, "/session", map[string]any{}, &sess)
	if sess.ID == "" {
		s.t.Fatal("agenttest: opencode created a session without an id")
	}
	provider, model, _ := strings.Cut(OpenCodeModel, "/")
	body := map[string]any{
		"model": map[string]any{"providerID": provider, "modelID": model},
		"parts": []any{map[string]any{"type": "text", "text": text}},
	}
	if agent != "" {
		body["agent"] = agent
	}
	s.Do(http.MethodPost, fmt.Sprintf("/session/%s/prompt_async", sess.ID), body, nil)
	return sess.ID
}
