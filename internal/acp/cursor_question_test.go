package acp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// askParams is cursor/ask_question params in the shape Cursor's clients document.
const askParams = `{"toolCallId":"tool_1","title":"Setup","questions":[` +
	`{"id":"db","prompt":"Which database?","allowMultiple":false,"options":[{"id":"pg","label":"PostgreSQL"},{"id":"lite","label":"SQLite"}]},` +
	`{"id":"orm","prompt":"Which ORM?","allowMultiple":true,"options":[{"id":"none","label":"None"},{"id":"gorm"}]}]}`

func TestDecodeCursorAsk(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{askParams, "tool_1|Setup|db:Which database?:pg=PostgreSQL,lite=SQLite:false|orm:Which ORM?:none=None,gorm=gorm:true"},
		{`{"sessionId":"s","questions":[{"id":"a","prompt":"A?","options":[]},{"prompt":"B?","options":[{"id":"x"}]},{"id":"c","prompt":"C?","options":[7,{"label":"no id"},{"id":"y","label":"Y"}]}]}`,
			"||c:C?:y=Y:false"},
		{`{"questions":[{"id":"a","prompt":"A?","options":[]}]}`, "error: questions: holds no question"},
		{`{"questions":{}}`, "error: questions"},
		{`[]`, "error: params"},
	} {
		a, err := DecodeCursorAsk(json.RawMessage(tc.in))
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			parts := []string{a.ToolCallID, a.Title}
			for _, q := range a.Questions {
				var opts []string
				for _, o := range q.Options {
					opts = append(opts, o.ID+"="+o.Label)
				}
				parts = append(parts, q.ID+":"+q.Prompt+":"+strings.Join(opts, ",")+":"+map[bool]string{true: "true", false: "false"}[q.Multi])
			}
			got = strings.Join(parts, "|")
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("DecodeCursorAsk(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCursorQuestionOutcome(t *testing.T) {
	for _, o := range []CursorQuestionOutcome{
		{Outcome: CursorAnswered, Answers: []CursorAnswer{{QuestionID: "db", OptionIDs: []string{"pg"}}}},
		{Outcome: CursorSkipped, Reason: "later"},
		{Outcome: CursorCancelled},
	} {
		back, err := DecodeCursorQuestionOutcome(o.Result())
		if err != nil || back.Outcome != o.Outcome || back.Reason != o.Reason || len(back.Answers) != len(o.Answers) {
			t.Errorf("%+v → %s → %+v %v", o, o.Result(), back, err)
		}
	}
	if got := string((CursorQuestionOutcome{Outcome: "weird"}).Result()); got != `{"outcome":{"outcome":"cancelled"}}` {
		t.Errorf("an unknown outcome is sent as %s", got)
	}
	for in, want := range map[string]string{
		`{"outcome":"answered"}`:          "error",
		`{"outcome":{"outcome":"maybe"}}`: CursorCancelled,
		`{"outcome":{"outcome":"answered","answers":[1,{"questionId":"q","selectedOptionIds":["a",2]}]}}`: CursorAnswered,
	} {
		o, err := DecodeCursorQuestionOutcome(json.RawMessage(in))
		got := o.Outcome
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("DecodeCursorQuestionOutcome(%s) = %q, want %q", in, got, want)
		}
	}
}

// FuzzDecodeCursorAsk: never panics; a decoded question has an id, a prompt and at least one
// option with an id, within the bounds; decoding is deterministic; only valid UTF-8 objects
// decode.
func FuzzDecodeCursorAsk(f *testing.F) {
	for _, s := range []string{askParams, `{"questions":[{"id":"a","prompt":"\ud800","options":[{"id":"x"}]}]}`, `{"questions":null}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := DecodeCursorAsk(b)
		again, err2 := DecodeCursorAsk(b)
		if (err == nil) != (err2 == nil) || len(a.Questions) != len(again.Questions) {
			t.Fatal("decoding is not deterministic")
		}
		if err != nil {
			return
		}
		if !utf8.Valid(b) || !json.Valid(b) {
			t.Fatalf("decoded invalid input %q", b)
		}
		if len(a.Questions) == 0 || len(a.Questions) > MaxCursorQuestions {
			t.Fatalf("%d questions", len(a.Questions))
		}
		for _, q := range a.Questions {
			if q.ID == "" || q.Prompt == "" || len(q.Options) == 0 || len(q.Options) > MaxCursorOptions {
				t.Fatalf("question %+v", q)
			}
			for _, o := range q.Options {
				if o.ID == "" || o.Label == "" {
					t.Fatalf("option %+v", o)
				}
			}
		}
	})
}

// FuzzDecodeCursorQuestionOutcome: never panics, and what it returns is one of the three
// outcomes, within the bounds, and survives a round trip through Result.
func FuzzDecodeCursorQuestionOutcome(f *testing.F) {
	for _, s := range []string{`{"outcome":{"outcome":"answered","answers":[{"questionId":"q","selectedOptionIds":["a"]}]}}`,
		`{"outcome":{"outcome":"skipped","reason":"x"}}`, `{"outcome":"cancelled"}`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := DecodeCursorQuestionOutcome(b)
		if err != nil {
			return
		}
		if o.Outcome != CursorAnswered && o.Outcome != CursorSkipped && o.Outcome != CursorCancelled {
			t.Fatalf("outcome %q", o.Outcome)
		}
		if len(o.Answers) > MaxCursorQuestions {
			t.Fatalf("%d answers", len(o.Answers))
		}
		back, err := DecodeCursorQuestionOutcome(o.Result())
		if err != nil || back.Outcome != o.Outcome || len(back.Answers) != len(o.Answers) {
			t.Fatalf("round trip %+v → %+v %v", o, back, err)
		}
	})
}
