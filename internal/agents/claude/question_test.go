package claude

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/waits"
)

const askInput = `{"questions":[{"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"PostgreSQL","description":"the server"},{"label":"SQLite"}]},` +
	`{"question":"Which features?","header":"Features","multiSelect":true,"options":[{"label":"Auth"},{"label":"Search"}]}],"metadata":{"source":"x"}}`

func TestQuestions(t *testing.T) {
	qs, err := Questions(json.RawMessage(askInput))
	if err != nil || len(qs) != 2 || qs[0].Question != "Which database?" || qs[0].Header != "DB" || qs[0].Multi || !qs[0].FreeText ||
		len(qs[0].Options) != 2 || qs[0].Options[0] != (waits.Option{Label: "PostgreSQL", Description: "the server"}) || !qs[1].Multi {
		t.Fatalf("Questions = %+v, %v", qs, err)
	}
	for _, bad := range []string{``, `[]`, `{"questions":[]}`, `{"questions":[{"question":""}]}`, `{"questions":"x"}`, `{"questions":[1,{"header":"h"}]}`} {
		if _, err := Questions(json.RawMessage(bad)); err == nil {
			t.Errorf("Questions(%s): no error", bad)
		}
	}
}

func TestQuestionAnswer(t *testing.T) {
	out := QuestionAnswer(json.RawMessage(askInput), map[string][]string{"Which database?": {"SQLite"}, "Which features?": {"Auth", "Search"}})
	if err := CheckQuestionAnswer(out); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	var v struct {
		HookSpecificOutput struct {
			UpdatedInput struct {
				Questions json.RawMessage   `json:"questions"`
				Answers   map[string]string `json:"answers"`
				Metadata  json.RawMessage   `json:"metadata"`
			} `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	u := v.HookSpecificOutput.UpdatedInput
	if u.Answers["Which database?"] != "SQLite" || u.Answers["Which features?"] != "Auth, Search" || !strings.Contains(string(u.Questions), "Which features?") || string(u.Metadata) != `{"source":"x"}` {
		t.Fatalf("updatedInput = %s", out)
	}
	if QuestionAnswer(json.RawMessage(askInput), nil) != nil || CheckQuestionAnswer(nil) != nil {
		t.Fatal("no answers must be no output")
	}
	for _, bad := range []string{`nope`, `{}`, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","permissionDecision":"allow"}}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"answers":{"a":"b"}}}}`} {
		if CheckQuestionAnswer([]byte(bad)) == nil {
			t.Errorf("CheckQuestionAnswer(%s): no error", bad)
		}
	}
}

// FuzzQuestions: whatever tool_input a hook event carries, the questions read from it are
// bounded, and an answer to them is output the hook accepts and Claude Code reads.
func FuzzQuestions(f *testing.F) {
	for _, s := range []string{askInput, `{"questions":[{"question":"q","options":[{"label":"a"}]}]}`, `{"questions":null}`, `{}`, `[1]`,
		`{"questions":[{"question":"q"},{"question":"q"}]}`, `{"questions":[{"question":"\u00e9","options":[{"label":""},{"label":"x","description":7}]}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		qs, err := Questions(json.RawMessage(input))
		if err != nil {
			return
		}
		if len(qs) == 0 || len(qs) > waits.MaxQuestions {
			t.Fatalf("%d questions", len(qs))
		}
		answers := map[string][]string{}
		for _, q := range qs {
			if q.Question == "" || len(q.Question) > waits.MaxQuestionBytes || len(q.Options) > waits.MaxOptions {
				t.Fatalf("question out of bounds: %+v", q)
			}
			answers[q.Question] = []string{"mine"}
		}
		if out := QuestionAnswer(json.RawMessage(input), answers); CheckQuestionAnswer(out) != nil {
			t.Fatalf("an answer the hook refuses: %s", out)
		}
	})
}
