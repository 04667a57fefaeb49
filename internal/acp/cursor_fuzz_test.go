package acp

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// validEntryStatus is what a plan decoder accepts as an entry's status.
func validEntryStatus(s string) bool { return validStatus(s) }

// FuzzDecodeCursorTodos: never panics; what it returns becomes a valid plan (every status one
// a plan decoder accepts, every content a string that came from the input), and decoding is
// deterministic.
func FuzzDecodeCursorTodos(f *testing.F) {
	for _, s := range []string{
		`{"sessionId":"s1","todos":[{"id":"1","content":"a","status":"TODO_STATUS_IN_PROGRESS"}]}`,
		`{"merge":true,"todos":[{"id":2,"content":"b","status":"weird"},{"content":"c"}]}`,
		`{"todos":[1,null,{"content":"\u00e9","status":"TODO_STATUS_"}]}`,
		`{"todos":{}}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeCursorTodos(b)
		again, err2 := DecodeCursorTodos(b)
		if (err == nil) != (err2 == nil) || len(got.Todos) != len(again.Todos) {
			t.Fatalf("decoding is not deterministic")
		}
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("decoded invalid JSON %q", b)
		}
		for _, td := range got.Todos {
			if !validEntryStatus(td.Status) {
				t.Errorf("status %q would be refused as a plan entry status", td.Status)
			}
		}
	})
}

// FuzzDecodeCursorPlan: never panics, and accepts exactly the JSON objects in valid UTF-8.
func FuzzDecodeCursorPlan(f *testing.F) {
	for _, s := range []string{
		`{"name":"n","overview":"o","plan":"# p","todos":[{"content":"x","status":"pending"}]}`,
		`{"plan":1,"todos":"x"}`, `{}`, `"x"`, `{"plan":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodeCursorPlan(b)
		var obj map[string]json.RawMessage
		isObj := utf8.Valid(b) && json.Unmarshal(b, &obj) == nil && obj != nil
		if (err == nil) != isObj {
			t.Fatalf("DecodeCursorPlan(%q) err = %v, but it is an object: %v", b, err, isObj)
		}
		for _, td := range p.Todos {
			if !validEntryStatus(td.Status) {
				t.Errorf("status %q would be refused as a plan entry status", td.Status)
			}
		}
	})
}

// FuzzDecodeCursorPlanOutcome: never panics; any decoded outcome is one of Cursor's three and
// survives a round trip through Result.
func FuzzDecodeCursorPlanOutcome(f *testing.F) {
	for _, s := range []string{
		`{"outcome":{"outcome":"accepted","planUri":"u"}}`, `{"outcome":{"outcome":"rejected","reason":"r"}}`,
		`{"outcome":"accepted"}`, `{"outcome":{}}`, `{}`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := DecodeCursorPlanOutcome(b)
		if err != nil {
			return
		}
		switch o.Outcome {
		case CursorAccepted, CursorRejected, CursorCancelled:
		default:
			t.Fatalf("outcome %q is not one of Cursor's", o.Outcome)
		}
		back, err := DecodeCursorPlanOutcome(o.Result())
		if err != nil || back != o {
			t.Fatalf("round trip of %+v gave %+v, %v", o, back, err)
		}
	})
}
