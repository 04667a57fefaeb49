package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/waits"
)

// realAsk is ask_user's tool_input as Gemini CLI 0.61.0 passed it to BeforeTool.
const realAsk = `{"questions":[{"header":"Database","options":[{"description":"server","label":"PostgreSQL"},` +
	`{"description":"file","label":"SQLite"}],"question":"Which database?","type":"choice"}]}`

func TestQuestions(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // "question/labels/multi|…", or the error's text
	}{
		{"real", realAsk, "Which database?/PostgreSQL,SQLite/false"},
		{"yes/no and text", `{"questions":[{"question":"Go?","type":"yesno"},{"question":"Name?","type":"text","options":[{"label":"x"}]}]}`, "Go?/Yes,No/false|Name?//false"},
		{"multi choice, type omitted", `{"questions":[{"question":"Which?","multiSelect":true,"options":[{"label":"a"},{"label":"b"},3]}]}`, "Which?/a,b/true"},
		{"a question without text ends the list", `{"questions":[{"question":"A?"},{"header":"x"},{"question":"C?"}]}`, "A?//false"},
		{"no questions", `{"questions":[]}`, "holds no question"},
		{"not an object", `"x"`, "not an object"},
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
					t.Errorf("%q takes no free text", q.Question)
				}
				parts = append(parts, q.Question+"/"+strings.Join(labels, ",")+"/"+map[bool]string{true: "true", false: "false"}[q.Multi])
			}
			if got := strings.Join(parts, "|"); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestQuestionAnswer(t *testing.T) {
	qs, err := Questions(json.RawMessage(`{"questions":[{"question":"A?","type":"text"},{"question":"B?","multiSelect":true,"options":[{"label":"x"},{"label":"y"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	out := QuestionAnswer(qs, map[string][]string{"A?": {"free words"}, "B?": {"x", "y"}})
	if err := CheckQuestionAnswer(out); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var v struct{ Decision, Reason string }
	if json.Unmarshal(out, &v) != nil || !strings.HasSuffix(v.Reason, `{"answers":{"0":"free words","1":"x, y"}}`) {
		t.Errorf("answer %s", out)
	}
	if QuestionAnswer(qs, nil) != nil || CheckQuestionAnswer([]byte(" ")) != nil {
		t.Error("no answers must be an empty output")
	}
	for _, bad := range []string{`{}`, `[`, `{"decision":"allow"}`, `{"decision":"deny","reason":"no"}`} {
		if CheckQuestionAnswer([]byte(bad)) == nil {
			t.Errorf("%s passed the check", bad)
		}
	}
}

func TestResponseAnswers(t *testing.T) {
	for in, want := range map[string]string{
		`{"llmContent":"{\"answers\":{\"0\":\"SQLite\"}}","returnDisplay":"x"}`: "SQLite",
		`{"llmContent":"{\"answers\":{\"10\":\"b\",\"2\":\"a\"}}"}`:             "a; b",
		`{"llmContent":"User dismissed ask_user dialog without answering."}`:    "",
		`{"llmContent":7}`: "",
		`[]`:               "",
	} {
		if got := ResponseAnswers(json.RawMessage(in)); got != want {
			t.Errorf("ResponseAnswers(%s) = %q, want %q", in, got, want)
		}
	}
}

// FuzzQuestions: whatever ask_user's arguments, Questions never panics, what it keeps is
// bounded, and an answer to every question passes the hook's own check.
func FuzzQuestions(f *testing.F) {
	f.Add([]byte(realAsk))
	f.Add([]byte(`{"questions":[{"question":"Go?","type":"yesno"},{"question":"` + strings.Repeat("ß", 2000) + `","type":"text"}]}`))
	f.Add([]byte(`{"questions":[null]}`))
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
			if len(q.Question) > waits.MaxQuestionBytes || len(q.Options) > waits.MaxOptions {
				t.Fatalf("unbounded question %+v", q)
			}
			answers[q.Question] = []string{"x"}
		}
		if err := CheckQuestionAnswer(QuestionAnswer(qs, answers)); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzResponseAnswers: any tool response gives one bounded line or nothing, never a panic.
func FuzzResponseAnswers(f *testing.F) {
	f.Add([]byte(`{"llmContent":"{\"answers\":{\"0\":\"SQLite\"}}"}`))
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

// TestRunHookQuestion: ask_user's BeforeTool waits for plandash and prints only an answer of the
// right shape; anything else prints nothing (Gemini's dialog asks) and says why.
func TestRunHookQuestion(t *testing.T) {
	event := `{"session_id":"g-1","hook_event_name":"BeforeTool","tool_name":"ask_user","tool_input":` + realAsk + `}`
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
		{"a plan's answer", []byte(`{"decision":"deny","reason":"Plan rejected"}`), nil, "", "no answer from plandash"},
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
