package amp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/waits"
)

// Applier is what the Service uses of plans.Service.
type Applier = agentkit.Applier

// Gate is what the Service uses of approval.Gate.
type Gate interface {
	Submit(ctx context.Context, sub approval.Submission) (approval.Request, bool, error)
	Wait(ctx context.Context, id string, limit time.Duration) (approval.Request, error)
	HandOver(ctx context.Context, id, by, note string) (approval.Request, error)
}

// Config tunes the Service.
type Config struct {
	// Host names the machine when the plugin did not say. os.Hostname when empty.
	Host string
	// Deadline is how long a plan waits at the gate; 12h when zero.
	Deadline time.Duration
	// Log receives what went wrong without failing the plugin; slog.Default when nil.
	Log *slog.Logger
	// Asker lists threads whose turn ended as waiting for the next prompt; nil: not listed.
	Asker waits.Asker
}

// TerminalDecider is who a request is handed over to when the plugin stopped waiting.
const TerminalDecider = agentkit.TerminalDecider

// maxThreads bounds the turns' plans kept in memory; they are forgotten when full, which only
// costs one turn's plan not held.
const maxThreads = 4096

// Service handles the events plandash's Amp plugin posts: it records them as ACP updates, and
// with a gate holds the end of a turn that wrote a todo list until the plan is decided. It is
// safe for concurrent use.
type Service struct {
	plans Applier
	gate  Gate // nil: plans are only recorded
	cfg   Config

	seen     agentkit.Seen
	mu       sync.Mutex
	turnPlan map[string][]Todo // the todo list a thread's current turn wrote, by session key
}

// NewService makes a Service. gate may be nil to record plans without holding them.
func NewService(p Applier, gate Gate, cfg Config) *Service {
	if cfg.Host == "" {
		cfg.Host, _ = os.Hostname()
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = 12 * time.Hour
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Service{plans: p, gate: gate, cfg: cfg, turnPlan: map[string][]Todo{}}
}

// IsGateEvent reports whether ev may be held: the end of a turn, posted by a plugin installed
// with the gate.
func IsGateEvent(ev Event) bool { return ev.Name == EventAgentEnd && ev.Gate }

// Handle takes one posted event (the body of POST /api/v1/hooks/amp) and returns the plugin's
// answer: empty for every event but agent.end of a turn that wrote a todo list, from a plugin
// installed with the gate while the Service has one, for which it waits until the person decides, the deadline passes or ctx ends, and then
// returns empty (the turn ends) or a follow-up message (Continue) that sends the plan back.
// An error means the payload was unusable or the store failed; the turn then ends as usual.
func (s *Service) Handle(ctx context.Context, body []byte) ([]byte, error) {
	ev, err := Decode(body)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "%v", err)
	}
	if ev.ThreadID == "" {
		return nil, errs.Errorf(errs.Invalid, "%v", ErrNoThread)
	}
	if err := s.record(ctx, ev); err != nil {
		return nil, err
	}
	key := SessionKey(ev.ThreadID)
	plan := s.turn(ev)
	if s.cfg.Asker != nil {
		s.note(ctx, ev)
	}
	if s.gate == nil || !IsGateEvent(ev) || len(plan) == 0 || ev.Status != "done" {
		return nil, nil
	}
	return s.hold(ctx, ev, key, plan)
}

// Captures reports whether body is an event that needs no answer: the server may acknowledge
// it before it is recorded.
func (s *Service) Captures(body []byte) bool {
	ev, err := Decode(body)
	return err == nil && ev.ThreadID != "" && !IsGateEvent(ev)
}

// turn keeps the todo list the thread's current turn wrote, and returns it at the turn's end
// (forgetting it there).
func (s *Service) turn(ev Event) []Todo {
	key := SessionKey(ev.ThreadID)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev.Name {
	case EventAgentStart, EventSessionStart:
		delete(s.turnPlan, key)
	case EventToolResult:
		if ev.Tool == ToolTodoWrite && ev.Status == "done" {
			if todos, err := Todos(ev.Input); err == nil {
				if len(s.turnPlan) >= maxThreads {
					clear(s.turnPlan)
				}
				s.turnPlan[key] = todos
			}
		}
	case EventAgentEnd:
		plan := s.turnPlan[key]
		delete(s.turnPlan, key)
		return plan
	}
	return nil
}

func (s *Service) record(ctx context.Context, ev Event) error {
	key := SessionKey(ev.ThreadID)
	st := State{Announce: !s.seen.Has(key), Host: s.cfg.Host}
	msgs, err := Translate(ev, st)
	if err != nil {
		return errs.Errorf(errs.Invalid, "%v", err)
	}
	return agentkit.Recorder{Plans: s.plans, Log: s.cfg.Log, Name: "amp", Hook: "amp plugin"}.Record(ctx, &s.seen, key, ev.Name, msgs)
}

// note lists a thread whose turn ended as waiting for its next prompt, until a new turn starts.
func (s *Service) note(ctx context.Context, ev Event) {
	key := SessionKey(ev.ThreadID)
	a := agentkit.Asking{Asker: s.cfg.Asker, Log: s.cfg.Log, Agent: AgentName, Title: AgentTitle, Hook: "amp plugin"}
	switch ev.Name {
	case EventAgentStart, EventSessionStart:
		a.Close(ctx, waits.InputID(key), "the thread went on")
	case EventAgentEnd:
		a.AwaitPrompt(ctx, key, "")
	}
}

// HookStopped is what a request says once the plugin stopped waiting for plandash's answer.
const HookStopped = "Amp's plugin stopped waiting — the turn ended without plandash's answer"

// hold submits the turn's todo list as its plan and waits for the decision.
func (s *Service) hold(ctx context.Context, ev Event, key string, plan []Todo) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Amp ended a turn in `%s` on %s (thread `%s`) with this todo list, and waits for your decision.\n\n",
		hookkit.Truncate(ev.Cwd, 1024), hookkit.Truncate(cmpOr(ev.Host, s.cfg.Host), 256), hookkit.Truncate(ev.ThreadID, 256))
	b.WriteString("- **Approve**: the turn ends; tell Amp to go on when you are ready.\n")
	b.WriteString("- **Modify**: Amp is sent your edited list to follow.\n")
	b.WriteString("- **Reject**: Amp is sent your reason and revises its plan.\n\n")
	b.WriteString("If nobody decides before the deadline, the turn simply ends.")
	r, err := s.holding().Hold(ctx, s.gate, approval.Submission{
		SessionID: key, Agent: AgentTitle, Title: "Amp plan: " + hookkit.Truncate(plan[0].Content, 120), Context: b.String(),
		Plan:    approval.PlanBody{Type: approval.TypeItems, Entries: TodoEntries(plan)},
		Options: []approval.Action{approval.Approve, approval.Modify, approval.Reject},
		Timeout: approval.Duration(s.cfg.Deadline), Default: approval.Reject,
	})
	if err != nil {
		return nil, err
	}
	return followUp(r), nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// followUp is the plugin's answer for a decided request: nothing (the turn ends) for an
// approval or an expiry, else the follow-up message that sends the plan back to Amp.
func followUp(r approval.Request) []byte {
	d := r.Decision
	if d == nil || d.Expired || r.Status == approval.Approved {
		return nil
	}
	var msg string
	switch r.Status {
	case approval.Modified:
		var b strings.Builder
		b.WriteString("I edited your plan in plandash. Replace your todo list with this one (todo_write) and follow it:\n")
		if d.Plan != nil {
			for i, e := range d.Plan.Entries {
				fmt.Fprintf(&b, "%d. %s\n", i+1, e.Content)
			}
			if d.Plan.Markdown != "" {
				b.WriteString(d.Plan.Markdown + "\n")
			}
		}
		if c := strings.TrimSpace(d.Comment); c != "" {
			b.WriteString("\nMy note: " + c)
		}
		msg = b.String()
	default:
		msg = "I did not approve your plan in plandash. Revise it (todo_write) and end your turn again."
		if why := strings.TrimSpace(d.Reason()); why != "" {
			msg += "\n\nMy feedback: " + why
		}
	}
	return Continue(msg)
}

// Continue is the answer that makes the plugin start a new turn with userMessage: agent.end's
// {"action":"continue","userMessage":…} result in Amp's plugin API.
func Continue(userMessage string) []byte {
	b, _ := json.Marshal(map[string]string{"action": "continue", "userMessage": userMessage})
	return b
}

// CheckAnswer reports whether b is an answer the plugin acts on: empty, or Continue's shape.
func checkAnswer(b []byte) error {
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil
	}
	var v struct {
		Action      string `json:"action"`
		UserMessage string `json:"userMessage"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("the answer is not a JSON object: %w", err)
	}
	if v.Action != "continue" || strings.TrimSpace(v.UserMessage) == "" {
		return errors.New(`the answer is not {"action":"continue","userMessage":…}`)
	}
	return nil
}

// holding is how the Service holds its plans at the gate.
func (s *Service) holding() agentkit.Holding {
	return agentkit.Holding{Log: s.cfg.Log, Hook: "amp plugin", Agent: AgentTitle, Stopped: HookStopped}
}
