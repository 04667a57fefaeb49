package droid

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/follow"
	"github.com/plandash/plandash/internal/plans"
)

// SessionStateFile is the name of the discoverer's state file in its state directory.
const SessionStateFile = "droid-sessions.json"

// maxShown bounds the message ids a session parser remembers having shown.
const maxShown = 1024

// fileState is what a session file's earlier lines taught its parser.
type fileState struct {
	sid, cwd  string
	announced bool
	shown     map[string]bool
	// spec is the last ExitSpecMode call's spec, shown again with its outcome.
	specID, spec, specTitle string
}

func (st fileState) clone() fileState {
	st.shown = maps.Clone(st.shown)
	return st
}

// sessionParser turns one session file's lines into the session's todos, spec and activity.
type sessionParser struct {
	svc   *Service
	path  string
	st    fileState
	lines []SessionLine
}

func (p *sessionParser) Line(b []byte, number int) error {
	ls, err := DecodeSessionLine(b, number)
	if err != nil {
		return err
	}
	for _, l := range ls {
		if l.Kind == "session_start" {
			if p.st.sid == "" {
				p.st.sid = l.SessionID
			}
			if p.st.cwd == "" {
				p.st.cwd = l.Cwd
			}
			continue
		}
		p.lines = append(p.lines, l)
	}
	return nil
}

func (p *sessionParser) Flush(ctx context.Context) error {
	ready := len(p.lines) > 0 && p.st.sid != ""
	return follow.FlushLines(&p.lines, &p.st, fileState.clone, ready, func(st *fileState, lines []SessionLine) error {
		return p.svc.applySession(ctx, p.path, st, lines)
	})
}

func (p *sessionParser) Saved() follow.Saved { return follow.Saved{Thread: p.st.sid, Cwd: p.st.cwd} }

// applySession translates lines of one session file and applies them. When hooks report the
// session too, they show its prompts and answers; the file then adds its todos and spec (the
// same plans, replaced whole, so seen both ways they are one).
func (s *Service) applySession(ctx context.Context, path string, st *fileState, lines []SessionLine) error {
	key := SessionKey(st.sid)
	hooked := agentkit.Hooked(ctx, &s.seen, s.plans, key)
	ctx = agentkit.AtLatest(ctx, lines, func(l SessionLine) time.Time { return l.At })
	b := &batch{agentkit.Batch{SID: key, IDPrefix: "droid-"}}
	b.Initialize("plandash-session-file", map[string]any{"name": AgentName, "title": AgentTitle})
	if !st.announced {
		b.NewSession(st.cwd, map[string]any{
			"host": s.cfg.Host, "agentSessionId": st.sid, "via": plans.ViaTranscript, "transcriptPath": path})
	}
	spec := func(state string) {
		meta := map[string]any{"state": state}
		if st.specTitle != "" {
			meta["title"] = st.specTitle
		}
		b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "markdown", "planId": PlanSpec,
			"content": st.spec, "_meta": map[string]any{"plandash": meta}}})
	}
	for _, l := range lines {
		switch l.Kind {
		case "prompt", "text":
			if hooked || st.shown[l.ID] {
				continue
			}
			remember(st.shown, l.ID)
			if l.Kind == "prompt" {
				b.Request("session/prompt", map[string]any{"sessionId": key, "prompt": []any{map[string]any{"type": "text", "text": l.Text}}}, nil)
			} else {
				b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": "droid-file-" + l.ID,
					"content": map[string]any{"type": "text", "text": l.Text}})
			}
		case "todos":
			if len(l.Todos) == 0 {
				b.Update(map[string]any{"sessionUpdate": "plan_removed", "planId": PlanTodos})
			} else {
				b.Update(map[string]any{"sessionUpdate": "plan_update", "plan": map[string]any{"type": "items", "planId": PlanTodos, "entries": TodoEntries(l.Todos)}})
			}
		case "spec":
			st.specID, st.spec, st.specTitle = l.ID, l.Text, l.Title
			spec("proposed")
		case "spec_result":
			if l.ID == st.specID && st.spec != "" {
				spec(map[bool]string{true: "approved", false: "rejected"}[l.Approved])
				st.specID, st.spec, st.specTitle = "", "", "" // kept only while it waits for its outcome
			}
		case "turn_end":
			if !hooked {
				b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "messageId": fmt.Sprintf("droid-file-end-%d", l.Number),
					"content": map[string]any{"type": "text", "text": "Turn ended (" + l.Text + ")"}})
			}
		}
	}
	res, err := agentkit.Apply(ctx, s.plans, "droid", b.Out)
	if err != nil {
		return err
	}
	for _, e := range res.Errors {
		s.cfg.Log.Warn("droid session file: update not applied", "session", key, "file", path, "line", e.Line, "err", e.Message)
	}
	st.announced = true
	return nil
}

func remember(m map[string]bool, id string) {
	if id == "" {
		return
	}
	if len(m) >= maxShown {
		clear(m)
	}
	m[id] = true
}

// DiscoverOptions tunes a Discoverer (follow.DiscoverOptions).
type DiscoverOptions = follow.DiscoverOptions

// Discoverer follows Droid's session files (~/.factory/sessions/<dir>/<id>.jsonl) read-only and
// shows their sessions through the Service, without any hook installed.
type Discoverer = follow.Follower

// NewDiscoverer makes a Discoverer of Droid's sessions directory dir (~/.factory/sessions).
func (s *Service) NewDiscoverer(dir string, opts DiscoverOptions) *Discoverer {
	src := follow.Source{Name: "droid sessions", StateFile: SessionStateFile, Match: isSessionFile, MaxDepth: 2, MaxLineBytes: MaxSessionLine,
		New: func(path string, saved follow.Saved) follow.Parser {
			return &sessionParser{svc: s, path: path, st: fileState{sid: saved.Thread, cwd: saved.Cwd, shown: map[string]bool{}}}
		}}
	return follow.Discover(dir, src, opts)
}

// isSessionFile reports whether rel (under ~/.factory/sessions) is a session file:
// <dir>/<id>.jsonl.
func isSessionFile(rel string) bool {
	parts := strings.Split(rel, string(filepath.Separator))
	return len(parts) == 2 && strings.HasSuffix(parts[1], ".jsonl") && len(parts[1]) > len(".jsonl")
}
