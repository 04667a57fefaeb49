package agentkit

import (
	"context"
	"log/slog"
	"time"

	"github.com/plandash/plandash/internal/waits"
)

// TerminalDecider is who a wait or a request is recorded as ended by when the agent reported
// that it was answered or passed by outside plandash (in the terminal).
const TerminalDecider = "terminal"

// Asking keeps the waits an agent's hook adapter holds in plandash itself (waits.Asker): the
// agent's questions, held until the person answers them here or the agent's own dialog takes
// over, and the session waiting for its next prompt between two turns. Each agent says when
// (which of its events); Asking says how, the same for all. Asker must not be nil: an agent
// without one lists neither kind of wait.
type Asking struct {
	Asker waits.Asker
	Log   *slog.Logger
	// Agent and Title are the agent's id and display name (AgentName, AgentTitle): the waits
	// carry them, and Title words them ("Gemini CLI waits for your next prompt").
	Agent, Title string
	// Hook starts each logged line: "gemini hook".
	Hook string
	// Deadline is how long a question waits for an answer in plandash before the agent's own
	// dialog asks it in the terminal.
	Deadline time.Duration
	// Then says what happens once plandash gives a question up; Title + "'s dialog asks in
	// the terminal" when empty.
	Then string
	// Untold, when set, says the agent never reports how a question left to its dialog was
	// answered: such a wait then ends with Untold as its outcome instead of staying listed.
	Untold string
}

// Ask holds a question (id, in session key) until the person answers it in plandash, and
// returns their answers, by question text, with answered true. It returns answered false
// when the wait ended otherwise, when ctx ended (the hook gave up: ctx's error is returned) or
// when nobody answered by the deadline; the wait then stays listed as one to answer in the
// terminal, until the agent reports the answer (Answered) or the session moves on.
func (a Asking) Ask(ctx context.Context, key, id, title string, qs []waits.Question) (answers map[string][]string, answered bool, err error) {
	now := a.Asker.Now()
	r := waits.Record{ID: id, Kind: waits.KindQuestion, SessionID: key, Agent: a.Agent, AgentName: a.Title,
		Title: title, Text: waits.QuestionsText(qs), Questions: qs, Answerable: true, Since: now,
		Deadline: now.Add(a.Deadline), Then: a.Then}
	if r.Then == "" {
		r.Then = a.Title + "'s dialog asks in the terminal"
	}
	if err := a.Asker.Begin(ctx, r); err != nil {
		return nil, false, err
	}
	for {
		got, err := a.Asker.Wait(ctx, r.ID, max(r.Deadline.Sub(a.Asker.Now()), 0))
		switch {
		case err != nil && ctx.Err() == nil:
			return nil, false, err
		case err == nil && !got.Open():
			return got.Answers, true, nil
		case ctx.Err() != nil, !a.Asker.Now().Before(r.Deadline):
			// The hook gave up (its timeout) or the deadline passed: the agent's dialog asks now.
			var err error
			if a.Untold != "" {
				_, err = a.Asker.Close(context.WithoutCancel(ctx), r.ID, TerminalDecider, a.Untold)
			} else {
				r.Answerable, r.Deadline, r.Then = false, time.Time{}, ""
				err = a.Asker.Begin(context.WithoutCancel(ctx), r)
			}
			if err != nil {
				a.Log.Warn(a.Hook+": hand a question to the terminal", "id", r.ID, "err", err)
			}
			return nil, false, ctx.Err()
		}
	}
}

// QuestionTitle is a question wait's title: the first question, marked when more follow.
func QuestionTitle(qs []waits.Question) string {
	if len(qs) > 1 {
		return qs[0].Question + " (and more)"
	}
	return qs[0].Question
}

// Close ends the wait id as decided in the terminal, for the reason why. It runs to the end
// even when ctx is cancelled; failures are logged only.
func (a Asking) Close(ctx context.Context, id, why string) {
	if _, err := a.Asker.Close(context.WithoutCancel(ctx), id, TerminalDecider, why); err != nil {
		a.Log.Warn(a.Hook+": close a wait", "id", id, "err", err)
	}
}

// Answered ends the question id that the agent reports answered in the terminal, with the
// answer's text when the agent gave one.
func (a Asking) Answered(ctx context.Context, id, answer string) {
	why := "answered in the terminal"
	if answer != "" {
		why += ": " + answer
	}
	a.Close(ctx, id, why)
}

// CloseQuestions ends the session's open questions: the agent moved on without them.
func (a Asking) CloseQuestions(ctx context.Context, key, why string) {
	open, err := a.Asker.Open(ctx)
	if err != nil {
		a.Log.Warn(a.Hook+": list open waits", "err", err)
		return
	}
	for _, r := range open {
		if r.Kind == waits.KindQuestion && r.SessionID == key {
			a.Close(ctx, r.ID, why)
		}
	}
}

// WentOn ends the session's wait for its next prompt: the agent works again. newPrompt says the
// person typed a new prompt (rather than the agent calling a tool), which also ends the
// session's open questions.
func (a Asking) WentOn(ctx context.Context, key string, newPrompt bool) {
	a.Close(ctx, waits.InputID(key), "the session went on")
	if newPrompt {
		a.CloseQuestions(ctx, key, "the person typed a new prompt")
	}
}

// TurnEnded ends the session's open questions and lists it as waiting for its next prompt
// (AwaitPrompt).
func (a Asking) TurnEnded(ctx context.Context, key, last string) {
	a.CloseQuestions(ctx, key, "the turn ended")
	a.AwaitPrompt(ctx, key, last)
}

// AwaitPrompt lists the session as waiting for its next prompt, with the agent's last message
// (cut to waits.MaxMessageBytes) when it reports one.
func (a Asking) AwaitPrompt(ctx context.Context, key, last string) {
	err := a.Asker.Begin(ctx, waits.Record{ID: waits.InputID(key), Kind: waits.KindInput, SessionID: key, Agent: a.Agent,
		AgentName: a.Title, Title: a.Title + " waits for your next prompt",
		Text: waits.Cut(last, waits.MaxMessageBytes), Since: a.Asker.Now()})
	if err != nil {
		a.Log.Warn(a.Hook+": keep the session's input wait", "session", key, "err", err)
	}
}

// SessionEnded ends every wait of the session.
func (a Asking) SessionEnded(ctx context.Context, key string) {
	a.Close(ctx, waits.InputID(key), "the session ended")
	a.CloseQuestions(ctx, key, "the session ended")
}
