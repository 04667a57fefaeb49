package opencode

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/waits"
)

// Asker keeps the questions plandash answers (waits.Asked).
type Asker interface {
	Begin(ctx context.Context, r waits.Record) error
	Wait(ctx context.Context, id string, limit time.Duration) (waits.Record, error)
	Close(ctx context.Context, id, by, outcome string) (bool, error)
	Now() time.Time
}

// Questions is question.asked's questions as plandash keeps them, bounded.
func Questions(q QuestionAsked) []waits.Question {
	out := make([]waits.Question, 0, min(len(q.Questions), waits.MaxQuestions))
	for _, oq := range q.Questions[:min(len(q.Questions), waits.MaxQuestions)] {
		if strings.TrimSpace(oq.Question) == "" {
			continue
		}
		wq := waits.Question{Question: oq.Question, Header: oq.Header, Multi: oq.Multiple, FreeText: oq.Custom == nil || *oq.Custom}
		for _, o := range oq.Options[:min(len(oq.Options), waits.MaxOptions)] {
			if o.Label != "" {
				wq.Options = append(wq.Options, waits.Option{Label: o.Label, Description: o.Description})
			}
		}
		out = append(out, wq)
	}
	return waits.Bound(out)
}

// holdQuestion keeps an OpenCode question as a wait until a person answers it in plandash, then
// replies to OpenCode (POST /question/{id}/reply, one list of labels per question, in order).
// Answered in OpenCode's own client first, the wait ends with ctx (hold ends it when OpenCode
// reports the reply).
func (w *Watcher) holdQuestion(ctx context.Context, q QuestionAsked) {
	answers, ok := keepQuestion(ctx, w.fl, w.opts.Asker, q, w.log)
	if !ok {
		return
	}
	w.unregister(q.ID)
	rctx, cancel := replyContext(ctx)
	defer cancel()
	if err := w.post(rctx, "/question/"+q.ID+"/reply", map[string]any{"answers": answers}); err != nil {
		w.log.Warn("opencode: answer question", "question", q.ID, "err", err)
	}
}

// keepQuestion keeps an OpenCode question as a wait until a person answers it in plandash, and
// returns the answers as OpenCode's reply takes them: one list of labels per question, in
// order. When ctx ends first (OpenCode was answered in its own client, or whoever held the
// question stopped) the wait ends as answered in OpenCode, and ok is false; so it is for a
// question plandash cannot show whole, which is left to OpenCode's clients.
func keepQuestion(ctx context.Context, fl *Flavor, asker Asker, q QuestionAsked, log *slog.Logger) ([][]string, bool) {
	qs := Questions(q)
	if len(qs) == 0 || len(qs) != len(q.Questions) {
		return nil, false
	}
	key := fl.SessionKey(q.SessionID)
	title := qs[0].Question
	if len(qs) > 1 {
		title += " (and more)"
	}
	r := waits.Record{ID: waits.QuestionID(key, q.ID), Kind: waits.KindQuestion, SessionID: key, Agent: fl.Name, AgentName: fl.Title,
		Title: title, Text: waits.QuestionsText(qs), Questions: qs, Answerable: true, Since: asker.Now()}
	if err := asker.Begin(ctx, r); err != nil {
		log.Warn("opencode: keep a question", "question", q.ID, "err", err)
		return nil, false
	}
	for {
		got, err := asker.Wait(ctx, r.ID, time.Hour)
		switch {
		case ctx.Err() != nil:
			if _, err := asker.Close(context.WithoutCancel(ctx), r.ID, "terminal", "answered in OpenCode"); err != nil {
				log.Warn("opencode: close a question", "question", q.ID, "err", err)
			}
			return nil, false
		case err != nil:
			log.Warn("opencode: wait for an answer", "question", q.ID, "err", err)
			return nil, false
		case !got.Open():
			if got.Answers == nil {
				return nil, false
			}
			answers := make([][]string, len(qs))
			for i, wq := range qs {
				answers[i] = got.Answers[wq.Question]
			}
			return answers, true
		}
	}
}

// noteInput keeps a session's "waiting for your next prompt": it begins when OpenCode reports
// the session idle and ends when it is busy again (the person sent a prompt).
func (w *Watcher) noteInput(ctx context.Context, ev Event) {
	noteInput(ctx, w.fl, w.opts.Asker, ev, w.log)
}

// noteInput is Watcher.noteInput for any source of OpenCode's events (the server's stream, the
// plugin).
func noteInput(ctx context.Context, fl *Flavor, asker Asker, ev Event, log *slog.Logger) {
	var p struct {
		SessionID string `json:"sessionID"`
		Status    struct {
			Type string `json:"type"`
		} `json:"status"`
	}
	if json.Unmarshal(ev.Properties, &p) != nil || p.SessionID == "" {
		return
	}
	key := fl.SessionKey(p.SessionID)
	id := waits.InputID(key)
	var err error
	switch {
	case ev.Type == EventSessionIdle:
		err = asker.Begin(ctx, waits.Record{ID: id, Kind: waits.KindInput, SessionID: key, Agent: fl.Name, AgentName: fl.Title,
			Title: fl.Title + " waits for your next prompt", Since: asker.Now()})
	case p.Status.Type == "busy":
		_, err = asker.Close(ctx, id, "terminal", "the session went on")
	}
	if err != nil {
		log.Warn("opencode: keep the session's input wait", "session", key, "err", err)
	}
}
