package crush

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/waits"
)

// Applier is what the Service uses of plans.Service.
type Applier = agentkit.Applier

// Asker keeps the waits plandash holds itself (waits.Asked): Crush's questions.
type Asker = waits.Asker

// Config tunes the Service.
type Config struct {
	// Host names the machine when the hook did not say. os.Hostname when empty.
	Host string
	// Log receives what went wrong without failing the hook; slog.Default when nil.
	Log *slog.Logger
	// Asker keeps Crush's questions; nil: they are left to the terminal.
	Asker Asker
	// QuestionDeadline is how long a question waits for an answer in plandash before Crush's
	// own dialog asks it; 10 minutes when zero. Keep it under the hook's timeout in crush.json.
	QuestionDeadline time.Duration
	// PermissionDeadline is how long a held tool call (install --gate) waits at the gate before
	// Crush's own permission prompt asks; 10 minutes when zero: the terminal cannot answer
	// while the hook holds the call.
	PermissionDeadline time.Duration
}

// TerminalDecider is who closes a wait answered elsewhere.
const TerminalDecider = agentkit.TerminalDecider

// Service handles Crush hook events against the real domain: it records them as ACP updates,
// holds questions until a person answers them in plandash, and holds the calls Crush asks
// permission for at the gate (with install --gate). It is safe for concurrent use.
type Service struct {
	plans Applier
	gate  Gate // nil: no call is held
	cfg   Config

	seen agentkit.Seen
}

// NewService makes a Service. gate may be nil to hold no tool call.
func NewService(p Applier, gate Gate, cfg Config) *Service {
	if cfg.Host == "" {
		cfg.Host, _ = os.Hostname()
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.QuestionDeadline <= 0 {
		cfg.QuestionDeadline = 10 * time.Minute
	}
	if cfg.PermissionDeadline <= 0 {
		cfg.PermissionDeadline = 10 * time.Minute
	}
	return &Service{plans: p, gate: gate, cfg: cfg}
}

// Handle takes one hook payload (the body of POST /api/v1/hooks/crush) and returns the hook's
// answer: empty for every event but a question call, for which it waits for the person's
// answers (QuestionAnswer) or returns empty (Crush's dialog asks), and a call Crush asks
// permission for, which waits at the gate for an allow or a deny (PermissionAnswer), or empty
// (Crush's prompt asks).
// An error means the payload was unusable or the store failed; the hook then prints nothing.
func (s *Service) Handle(ctx context.Context, body []byte) ([]byte, error) {
	ev, err := Decode(body)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "%v", err)
	}
	if ev.SessionID == "" {
		return nil, errs.Errorf(errs.Invalid, "%v", ErrNoSession)
	}
	if err := s.record(ctx, ev); err != nil {
		return nil, err
	}
	switch {
	case s.cfg.Asker != nil && IsQuestionEvent(ev):
		return s.ask(ctx, ev)
	case s.gate != nil && IsPermissionEvent(ev):
		return s.holdPermission(ctx, ev)
	}
	return nil, nil
}

// Captures reports whether body is an event that needs no answer (everything but a question or
// a call held for permission): the server may acknowledge it before it is recorded.
func (s *Service) Captures(body []byte) bool {
	ev, err := Decode(body)
	return err == nil && ev.SessionID != "" && !IsQuestionEvent(ev) && !IsPermissionEvent(ev)
}

// record translates ev and applies it.
func (s *Service) record(ctx context.Context, ev Event) error {
	key := SessionKey(ev.SessionID)
	st := State{Announce: !s.seen.Has(key), Host: s.cfg.Host}
	if ev.Host != "" {
		st.Host = ev.Host
	}
	msgs, err := Translate(ev, st)
	if err != nil {
		return errs.Errorf(errs.Invalid, "%v", err)
	}
	return s.recorder().Record(ctx, &s.seen, key, ev.ToolName, msgs)
}

// recorder applies what the Service translated.
func (s *Service) recorder() agentkit.Recorder {
	return agentkit.Recorder{Plans: s.plans, Log: s.cfg.Log, Name: "crush", Hook: "crush hook"}
}

// ask holds the question call until the person answers it in plandash, and answers the hook
// with their answers. Nothing (Crush's dialog asks) when the questions cannot be read, when the
// wait ended otherwise, when the hook gave up, or when nobody answered by the deadline; the wait
// is then closed, since Crush tells hooks nothing more about the call.
func (s *Service) ask(ctx context.Context, ev Event) ([]byte, error) {
	qs, err := Questions(ev.ToolInput)
	if err != nil {
		s.cfg.Log.Warn("crush hook: a question plandash cannot show; the terminal asks", "err", err)
		return nil, nil
	}
	key := SessionKey(ev.SessionID)
	// Should the hook give up or the deadline pass, Crush's dialog asks, and no later event says
	// how it was answered, so the wait ends there (Untold).
	a := agentkit.Asking{Asker: s.cfg.Asker, Log: s.cfg.Log, Agent: AgentName, Title: AgentTitle, Hook: "crush hook",
		Deadline: s.cfg.QuestionDeadline, Untold: "left to Crush's dialog in the terminal"}
	id := waits.QuestionID(key, ToolQuestion+"\x00"+waits.QuestionsText(qs))
	answers, ok, err := a.Ask(ctx, key, id, agentkit.QuestionTitle(qs), qs)
	if !ok {
		return nil, err
	}
	return QuestionAnswer(qs, answers), nil
}
