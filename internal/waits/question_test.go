package waits

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/errs"
)

func askDB() Record {
	return Record{ID: "q-1", Kind: KindQuestion, Answerable: true, Questions: []Question{
		{Question: "Which database?", Options: []Option{{Label: "PostgreSQL"}, {Label: "SQLite"}}, FreeText: true},
	}}
}

func TestResolve(t *testing.T) {
	two := Record{Questions: []Question{
		{Question: "Which database?", Options: []Option{{Label: "PostgreSQL"}, {Label: "SQLite"}}},
		{Question: "Which features?", Options: []Option{{Label: "Auth"}, {Label: "Search"}}, Multi: true},
	}}
	for _, tc := range []struct {
		name string
		r    Record
		a    Answer
		want string // the answers in words, or the error's words
		kind errs.Kind
	}{
		{"an option", askDB(), Answer{Action: "opt-1"}, "SQLite", 0},
		{"free text", askDB(), Answer{Action: "text", Text: " MySQL "}, "MySQL", 0},
		{"an option out of range", askDB(), Answer{Action: "opt-2"}, "not one of the question's 2 options", errs.Invalid},
		{"a foreign action", askDB(), Answer{Action: "approve"}, "opt-N or text", errs.Invalid},
		{"empty free text", askDB(), Answer{Action: "text", Text: "  "}, "has no answer", errs.Invalid},
		{"by question", two, Answer{Answers: map[string][]string{"Which database?": {"SQLite"}, "Which features?": {"Auth", "Search"}}}, "SQLite; Auth, Search", 0},
		{"one action for two questions", two, Answer{Action: "opt-0"}, "asks 2 questions", errs.Invalid},
		{"a question left out", two, Answer{Answers: map[string][]string{"Which database?": {"SQLite"}}}, `"Which features?" has no answer`, errs.Invalid},
		{"two answers to a single choice", two, Answer{Answers: map[string][]string{"Which database?": {"SQLite", "PostgreSQL"}, "Which features?": {"Auth"}}}, "takes one answer", errs.Invalid},
		{"a label not offered", two, Answer{Answers: map[string][]string{"Which database?": {"Oracle"}, "Which features?": {"Auth"}}}, `"Oracle" is not one of the options`, errs.Invalid},
		{"a question not asked", two, Answer{Answers: map[string][]string{"Which database?": {"SQLite"}, "Which features?": {"Auth"}, "Why?": {"x"}}}, `"Why?" is not one of the questions`, errs.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.r.resolve(tc.a)
			if tc.kind != 0 {
				if errs.KindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %v saying %q", err, tc.kind, tc.want)
				}
				return
			}
			if err != nil || answerWords(got, tc.r.Questions) != tc.want {
				t.Fatalf("answers = %v (%q), %v; want %q", got, answerWords(got, tc.r.Questions), err, tc.want)
			}
		})
	}
}

func TestRecordWait(t *testing.T) {
	w := askDB().Wait(Who{SessionID: "s1", AgentName: "Claude Code"})
	if w.URL != "/waits/q-1" || len(w.Actions) != 2 || w.Actions[1] != (Action{ID: "opt-1", Label: "SQLite"}) {
		t.Fatalf("question wait = %+v", w)
	}
	w = Record{ID: "input-1", Kind: KindInput, SessionID: "s/1", Text: strings.Repeat("x", MaxDetail+1)}.Wait(Who{})
	if w.URL != "/sessions/s%2F1" || w.Fits || w.Detail != "" || len(w.Actions) != 0 || w.Actions == nil || w.Answerable {
		t.Fatalf("input wait = %+v", w)
	}
}

func TestBoundAndCut(t *testing.T) {
	qs := make([]Question, MaxQuestions+3)
	for i := range qs {
		qs[i] = Question{Question: string(rune('a'+i)) + strings.Repeat("é", MaxQuestionBytes), Options: make([]Option, MaxOptions+1)}
	}
	qs[1].Question = qs[0].Question // a repeat cannot be answered apart
	got := Bound(qs)
	if len(got) != MaxQuestions || len(got[0].Options) != MaxOptions {
		t.Fatalf("bound: %d questions, %d options", len(got), len(got[0].Options))
	}
	for _, q := range got {
		if len(q.Question) > MaxQuestionBytes || !utf8.ValidString(q.Question) {
			t.Fatalf("question cut badly: %d bytes", len(q.Question))
		}
	}
	if l := line("a\nb" + strings.Repeat("c", 300)); utf8.RuneCountInString(l) != MaxTitle || strings.Contains(l, "\n") || !strings.HasSuffix(l, "…") {
		t.Fatalf("line = %q", l)
	}
}

// FuzzResolve: whatever answer a client sends, resolving it either fails with a kind, or gives
// every question an answer among its options (or free text where allowed), within bounds.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{`{"action":"opt-0"}`, `{"action":"text","text":"x"}`, `{"answers":{"Which database?":["SQLite"]}}`,
		`{"action":"opt--1"}`, `{"answers":{"Which database?":[]}}`, `{"answers":{"":[""]}}`} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, body string, multi bool) {
		var a Answer
		if json.Unmarshal([]byte(body), &a) != nil {
			return
		}
		r := askDB()
		r.Questions[0].Multi = multi
		r.Questions[0].FreeText = len(body)%2 == 0
		got, err := r.resolve(a)
		if err != nil {
			if errs.KindOf(err) == errs.Internal {
				t.Fatalf("an answer's error has no kind: %v", err)
			}
			return
		}
		vals := got[r.Questions[0].Question]
		if len(got) != 1 || len(vals) == 0 || (!multi && len(vals) != 1) {
			t.Fatalf("resolved %v", got)
		}
		for _, v := range vals {
			if v == "" || len(v) > MaxAnswerText {
				t.Fatalf("an answer out of bounds: %q", v)
			}
			if !r.Questions[0].FreeText && v != "PostgreSQL" && v != "SQLite" {
				t.Fatalf("an answer not offered: %q", v)
			}
		}
	})
}
