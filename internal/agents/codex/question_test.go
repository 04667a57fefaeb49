package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/waits"
)

// realAsk is request_user_input's tool_input as Codex 0.169.0 passed it to PreToolUse.
const realAsk = `{"questions":[{"header":"Database","id":"db","options":[{"description":"server","label":"PostgreSQL"},` +
	`{"description":"file","label":"SQLite"}],"question":"Which database?"}]}`

func TestQuestions(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // "id:question/labels|…", or the error's text
	}{
		{"real", realAsk, "db:Which database?/PostgreSQL,SQLite"},
		{"two, one without id skipped", `{"questions":[{"question":"A?","options":[{"label":"x"}]},{"id":"b","question":"B?","options":[{"label":"y"},7]}]}`, "b:B?/y"},
		{"repeated text kept once", `{"questions":[{"id":"a","question":"Q?"},{"id":"b","question":"Q?"}]}`, "a:Q?/"},
		{"no questions", `{"questions":[]}`, "holds no question"},
		{"not an object", `[1]`, "not an object"},
		{"questions of the wrong type", `{"questions":{}}`, "not an object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := Questions(json.RawMessage(tc.in))
			if err != nil {
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err %v, want %q", err, tc.want)
				}
				return
			}
			var parts []string
			for _, q := range qs {
				var labels []string
				for _, o := range q.Options {
					labels = append(labels, o.Label)
				}
				if !q.FreeText {
					t.Errorf("%q takes no free text", q.Question.Question)
				}
				parts = append(parts, q.ID+":"+q.Question.Question+"/"+strings.Join(labels, ","))
			}
			if got := strings.Join(parts, "|"); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestQuestionAnswer(t *testing.T) {
	qs, err := Questions(json.RawMessage(realAsk))
	if err != nil {
		t.Fatal(err)
	}
	out := QuestionAnswer(qs, map[string][]string{"Which database?": {"SQLite"}})
	if err := CheckQuestionAnswer(out); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var v struct {
		Out struct{ PermissionDecisionReason string } `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(out, &v) != nil || !strings.HasSuffix(v.Out.PermissionDecisionReason, `{"answers":{"db":{"answers":["SQLite"]}}}`) {
		t.Errorf("answer %s", out)
	}
	if QuestionAnswer(qs, nil) != nil || CheckQuestionAnswer(nil) != nil {
		t.Error("no answers must be an empty output")
	}
	for _, bad := range []string{`{}`, `nope`, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`,
		`{"hookSpecificOutput":{"hookEventName":"Stop","permissionDecision":"deny","permissionDecisionReason":"x"}}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`} {
		if CheckQuestionAnswer([]byte(bad)) == nil {
			t.Errorf("%s passed the check", bad)
		}
	}
}

func TestResponseAnswers(t *testing.T) {
	for in, want := range map[string]string{
		`{"answers":{"db":{"answers":["SQLite"]}}}`:                                  "SQLite",
		`"{\"answers\":{\"b\":{\"answers\":[\"x\",\"y\"]},\"a\":{\"answers\":[]}}}"`: "; x, y",
		`{"answers":{}}`:      "",
		`"Tool call blocked"`: "",
		`7`:                   "",
	} {
		if got := ResponseAnswers(json.RawMessage(in)); got != want {
			t.Errorf("ResponseAnswers(%s) = %q, want %q", in, got, want)
		}
	}
}

// FuzzQuestions: whatever request_user_input's arguments, Questions never panics, what it keeps
// is bounded and has ids, and an answer to every question passes the hook's own check.
func FuzzQuestions(f *testing.F) {
	f.Add([]byte(realAsk))
	f.Add([]byte(`{"questions":[{"id":"","question":"x"},{"id":"a","question":"` + strings.Repeat("é", 3000) + `"}]}`))
	f.Add([]byte(`{"questions":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		qs, err := Questions(b)
		if err != nil {
			return
		}
		if len(qs) == 0 || len(qs) > waits.MaxQuestions {
			t.Fatalf("%d questions", len(qs))
		}
		answers := map[string][]string{}
		for _, q := range qs {
			if q.ID == "" || len(q.ID) > waits.MaxLabelBytes || len(q.Question.Question) > waits.MaxQuestionBytes || len(q.Options) > waits.MaxOptions {
				t.Fatalf("unbounded question %+v", q)
			}
			answers[q.Question.Question] = []string{"x"}
		}
		if err := CheckQuestionAnswer(QuestionAnswer(qs, answers)); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzResponseAnswers: any tool response gives one bounded line or nothing, never a panic.
func FuzzResponseAnswers(f *testing.F) {
	f.Add([]byte(`{"answers":{"db":{"answers":["SQLite"]}}}`))
	f.Add([]byte(`"{\"answers\":{}}"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got := ResponseAnswers(b); len(got) > waits.MaxLabelBytes {
			t.Fatalf("%d bytes", len(got))
		}
	})
}

// fixedPoster answers every post with body (or err), and remembers whether it was asked to wait.
type fixedPoster struct {
	body []byte
	err  error
	wait *bool
}

func (p fixedPoster) Post(_ context.Context, _ []byte, wait bool) ([]byte, error) {
	*p.wait = wait
	return p.body, p.err
}

// TestRunHookQuestion: request_user_input's PreToolUse waits for plandash and prints only an
// answer of the right shape; anything else prints nothing (Codex's picker asks) and says why.
func TestRunHookQuestion(t *testing.T) {
	event := `{"session_id":"th-1","hook_event_name":"PreToolUse","tool_name":"request_user_input","tool_use_id":"c1","tool_input":` + realAsk + `}`
	qs, _ := Questions(json.RawMessage(realAsk))
	good := QuestionAnswer(qs, map[string][]string{"Which database?": {"SQLite"}})
	for _, tc := range []struct {
		name   string
		answer []byte
		err    error
		want   string
		stderr string
	}{
		{"answered", good, nil, string(good), ""},
		{"no answer", nil, nil, "", ""},
		{"a plan's answer", []byte(`{"decision":"block","reason":"x"}`), nil, "", "no answer from plandash"},
		{"plandash down", nil, errors.New("connection refused"), "", "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, stderr bytes.Buffer
			var waited bool
			if err := RunHook(context.Background(), strings.NewReader(event), &out, fixedPoster{tc.answer, tc.err, &waited}, HookOptions{Stderr: &stderr}); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want || !waited || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("printed %q (waited %v), stderr %q", out.String(), waited, stderr.String())
			}
		})
	}
}
