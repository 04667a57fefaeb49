package agentkit_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/agenttest"
	"github.com/plandash/plandash/internal/waits"
)

func newAsking(t *testing.T, deadline time.Duration) (agentkit.Asking, *waits.Asked) {
	t.Helper()
	asked := waits.NewAsked(agenttest.SQLite(t).Waits(), nil, nil)
	return agentkit.Asking{Asker: asked, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Agent: "some-agent", Title: "Some Agent", Hook: "some hook", Deadline: deadline}, asked
}

var qs = []waits.Question{{Question: "Which colour?", Options: []waits.Option{{Label: "Red"}, {Label: "Blue"}}}}

func TestAskAnsweredInPlandash(t *testing.T) {
	a, asked := newAsking(t, time.Minute)
	ctx := t.Context()
	go func() {
		for {
			if _, _, err := asked.Answer(ctx, "q1", waits.Answer{Answers: map[string][]string{"Which colour?": {"Blue"}}, By: "me"}); err == nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	got, ok, err := a.Ask(ctx, "s1", "q1", "Which colour?", qs)
	if err != nil || !ok || len(got["Which colour?"]) != 1 || got["Which colour?"][0] != "Blue" {
		t.Fatalf("Ask = %v, %v, %v; want Blue, answered", got, ok, err)
	}
}

func TestAskLeftToTheTerminal(t *testing.T) {
	for name, tc := range map[string]struct {
		deadline time.Duration
		cancel   bool
	}{
		"deadline passed": {deadline: time.Millisecond},
		"hook gave up":    {deadline: time.Hour, cancel: true},
	} {
		t.Run(name, func(t *testing.T) {
			a, asked := newAsking(t, tc.deadline)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tc.cancel {
				time.AfterFunc(50*time.Millisecond, cancel)
			}
			_, ok, err := a.Ask(ctx, "s1", "q1", "Which colour?", qs)
			if ok || (err != nil) != tc.cancel {
				t.Fatalf("Ask = %v, %v; want not answered, error only when the hook gave up", ok, err)
			}
			r, err := asked.Get(t.Context(), "q1")
			if err != nil || !r.Open() || r.Answerable || !r.Deadline.IsZero() || r.Then != "" {
				t.Fatalf("the wait = %+v, %v; want open, for the terminal only", r, err)
			}
			if r.Agent != "some-agent" || r.AgentName != "Some Agent" || r.Text != waits.QuestionsText(qs) {
				t.Fatalf("the wait = %+v; want the agent's and the questions' words", r)
			}
			a.Answered(t.Context(), "q1", "Red")
			if r, _ := asked.Get(t.Context(), "q1"); r.Open() || r.EndedBy != agentkit.TerminalDecider || r.Outcome != "answered in the terminal: Red" {
				t.Fatalf("after Answered the wait = %+v", r)
			}
		})
	}
}

func TestTurnsAndPrompts(t *testing.T) {
	a, asked := newAsking(t, time.Hour)
	ctx := t.Context()
	open := func() map[string]bool {
		rs, err := asked.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, r := range rs {
			ids[r.ID] = true
		}
		return ids
	}
	question := func(id, key string) {
		if err := asked.Begin(ctx, waits.Record{ID: id, Kind: waits.KindQuestion, SessionID: key, Title: "q", Since: asked.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	input := waits.InputID("s1")

	question("q1", "s1")
	question("q2", "other")
	a.TurnEnded(ctx, "s1", "all done")
	if got := open(); !got[input] || got["q1"] || !got["q2"] {
		t.Fatalf("after the turn ended, open = %v; want the input wait and the other session's question", got)
	}
	if r, _ := asked.Get(ctx, input); r.Title != "Some Agent waits for your next prompt" || r.Text != "all done" || r.Kind != waits.KindInput {
		t.Fatalf("the input wait = %+v", r)
	}

	question("q3", "s1")
	a.WentOn(ctx, "s1", false)
	if got := open(); got[input] || !got["q3"] {
		t.Fatalf("after a tool call, open = %v; want the question kept, the input wait ended", got)
	}
	a.TurnEnded(ctx, "s1", "")
	question("q4", "s1")
	a.WentOn(ctx, "s1", true)
	if got := open(); got[input] || got["q4"] {
		t.Fatalf("after a new prompt, open = %v; want the session's waits ended", got)
	}

	a.TurnEnded(ctx, "s1", "")
	question("q5", "s1")
	a.SessionEnded(ctx, "s1")
	if got := open(); got[input] || got["q5"] || !got["q2"] {
		t.Fatalf("after the session ended, open = %v; want only the other session's question", got)
	}
	if r, _ := asked.Get(ctx, "q5"); r.Outcome != "the session ended" || r.EndedBy != agentkit.TerminalDecider {
		t.Fatalf("q5 = %+v", r)
	}
}

func TestAskUntold(t *testing.T) {
	a, asked := newAsking(t, time.Millisecond)
	a.Untold = "left to the dialog"
	if _, ok, err := a.Ask(t.Context(), "s1", "q1", "Which colour?", qs); ok || err != nil {
		t.Fatalf("Ask = %v, %v; want not answered, no error", ok, err)
	}
	if r, err := asked.Get(t.Context(), "q1"); err != nil || r.Open() || r.Outcome != "left to the dialog" || r.EndedBy != agentkit.TerminalDecider {
		t.Fatalf("the wait = %+v, %v; want ended as left to the dialog", r, err)
	}
}

func TestQuestionTitle(t *testing.T) {
	two := append(qs, waits.Question{Question: "Which size?"})
	if got := agentkit.QuestionTitle(qs); got != "Which colour?" {
		t.Errorf("one question: %q", got)
	}
	if got := agentkit.QuestionTitle(two); got != "Which colour? (and more)" {
		t.Errorf("two questions: %q", got)
	}
}

func TestAskThen(t *testing.T) {
	for then, want := range map[string]string{"": "Some Agent's dialog asks in the terminal", "Pi asks in its terminal": "Pi asks in its terminal"} {
		a, asked := newAsking(t, time.Minute)
		a.Then = then
		got := make(chan string, 1)
		go func() {
			for {
				if r, err := asked.Get(t.Context(), "q1"); err == nil {
					got <- r.Then
					_, _, _ = asked.Answer(t.Context(), "q1", waits.Answer{Answers: map[string][]string{"Which colour?": {"Red"}}, By: "me"})
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
		if _, ok, err := a.Ask(t.Context(), "s1", "q1", "Which colour?", qs); !ok || err != nil {
			t.Fatalf("Ask = %v, %v", ok, err)
		}
		if g := <-got; g != want {
			t.Errorf("Then %q: the wait says %q, want %q", then, g, want)
		}
	}
}
