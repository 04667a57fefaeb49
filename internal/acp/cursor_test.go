package acp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestCursorStatus(t *testing.T) {
	for in, want := range map[string]string{
		"TODO_STATUS_PENDING":     "pending",
		"TODO_STATUS_IN_PROGRESS": "in_progress",
		"TODO_STATUS_COMPLETED":   "completed",
		"TODO_STATUS_CANCELLED":   "cancelled",
		"TODO_STATUS_UNSPECIFIED": "pending",
		"in_progress":             "in_progress",
		"completed":               "completed",
		"canceled":                "cancelled",
		"":                        "pending",
		"TODO_STATUS_BLOCKED":     "_blocked",
		"_custom":                 "_custom",
	} {
		if got := CursorStatus(in); got != want {
			t.Errorf("CursorStatus(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecodeCursorTodos(t *testing.T) {
	for _, tc := range []struct {
		name, params string
		want         CursorTodos
		err          string
	}{
		{"protobuf statuses", `{"sessionId":"s1","todos":[{"id":"1","content":"Write it","status":"TODO_STATUS_IN_PROGRESS"},{"content":"Test it","status":"TODO_STATUS_PENDING"}]}`,
			CursorTodos{SessionID: "s1", Todos: []CursorTodo{{"1", "Write it", "in_progress"}, {"", "Test it", "pending"}}}, ""},
		{"merge, numeric id, no session", `{"merge":true,"toolCallId":"tc","todos":[{"id":2,"content":"x","status":"completed"}]}`,
			CursorTodos{ToolCallID: "tc", Merge: true, Todos: []CursorTodo{{"2", "x", "completed"}}}, ""},
		{"bad todos skipped", `{"todos":[1,{"status":"completed"},{"content":"kept"}]}`,
			CursorTodos{Todos: []CursorTodo{{"", "kept", "pending"}}}, ""},
		{"no todos", `{"sessionId":"s"}`, CursorTodos{}, "todos: missing"},
		{"not an object", `[1]`, CursorTodos{}, "params: must be an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeCursorTodos(json.RawMessage(tc.params))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDecodeCursorPlan(t *testing.T) {
	p, err := DecodeCursorPlan(json.RawMessage(`{"sessionId":"s","toolCallId":"tc","name":"Login","overview":"Tighten login","plan":"1. Form","todos":[{"id":"t1","content":"Form","status":"pending"}],"isProject":false}`))
	if err != nil {
		t.Fatal(err)
	}
	want := CursorPlan{SessionID: "s", ToolCallID: "tc", Name: "Login", Overview: "Tighten login", Plan: "1. Form", Todos: []CursorTodo{{"t1", "Form", "pending"}}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("got %+v, want %+v", p, want)
	}
	if _, err := DecodeCursorPlan(json.RawMessage(`{}`)); err != nil {
		t.Errorf("an empty plan must still be answerable: %v", err)
	}
}

func TestCursorPlanOutcome(t *testing.T) {
	for _, tc := range []struct {
		o    CursorPlanOutcome
		wire string
	}{
		{CursorPlanOutcome{Outcome: CursorAccepted}, `{"outcome":{"outcome":"accepted"}}`},
		{CursorPlanOutcome{Outcome: CursorAccepted, PlanURI: "file:///p.md"}, `{"outcome":{"outcome":"accepted","planUri":"file:///p.md"}}`},
		{CursorPlanOutcome{Outcome: CursorRejected, Reason: "no"}, `{"outcome":{"outcome":"rejected","reason":"no"}}`},
		{CursorPlanOutcome{Outcome: CursorCancelled}, `{"outcome":{"outcome":"cancelled"}}`},
	} {
		if got := string(tc.o.Result()); got != tc.wire {
			t.Errorf("%+v encodes as %s, want %s", tc.o, got, tc.wire)
		}
		back, err := DecodeCursorPlanOutcome(tc.o.Result())
		if err != nil || back != tc.o {
			t.Errorf("%s decodes as %+v, %v", tc.wire, back, err)
		}
	}
	// Cursor reads a flat reply, or an outcome it does not know, as the user cancelling.
	for _, flat := range []string{`{"outcome":"accepted"}`, `{"outcome":{"outcome":"maybe"}}`} {
		if o, err := DecodeCursorPlanOutcome(json.RawMessage(flat)); err != nil || o.Outcome != CursorCancelled {
			t.Errorf("%s decodes as %+v, %v; want cancelled", flat, o, err)
		}
	}
}
