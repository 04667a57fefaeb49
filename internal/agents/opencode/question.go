package opencode

import (
	"context"
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
	qs := Questions(q)
	if len(qs) == 0 || len(qs) != len(q.Questions) {
		return // a question plandash cannot show whole is left to OpenCode's clients
	}
	key := SessionKey(q.SessionID)
	title := qs[0].Question
	if len(qs) > 1 {
		title += " (and more)"
	}
	r := waits.Record{ID: waits.QuestionID(key, q.ID), Kind: waits.KindQuestion, SessionID: key, Agent: AgentName, AgentName: AgentTitle,
		Title: title, Text: waits.QuestionsText(qs), Questions: qs, Answerable: true, Since: w.opts.Asker.Now()}
	if err := w.opts.Asker.Begin(ctx, r); err != nil {
		w.log.Warn("opencode: keep a question", "question", q.ID, "err", err)
		return
	}
	for {
		got, err := w.opts.Asker.Wait(ctx, r.ID, time.Hour)
		switch {
		case ctx.Err() != nil:
			if _, err := w.opts.Asker.Close(context.WithoutCancel(ctx), r.ID, "terminal", "answered in OpenCode"); err != nil {
				w.log.Warn("opencode: close a question", "question", q.ID, "err", err)
			}
			return
		case err != nil:
			w.log.Warn("opencode: wait for an answer", "question", q.ID, "err", err)
			return
		case !got.Open():
			if got.Answers == nil {
				return
			}
			answers := make([][]string, len(qs))
			for i, wq := range qs {
				answers[i] = got.Answers[wq.Question]
			}
			w.unregister(q.ID)
			rctx, cancel := replyContext(ctx)
			defer cancel()
			if err := w.post(rctx, "/question/"+q.ID+"/reply", map[string]any{"answers": answers}); err != nil {
				w.log.Warn("opencode: answer question", "question", q.ID, "err", err)
			}
			return
		}
	}
}
