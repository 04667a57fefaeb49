package gemini

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// FuzzDecode feeds Decode arbitrary payloads: it never panics, what it accepts marshals back
// into a payload that decodes to the same known fields, and the translation of any accepted
// event is a short batch of valid JSON messages that grows at most linearly with the event.
func FuzzDecode(f *testing.F) {
	names, err := filepath.Glob(filepath.Join("testdata", "captured", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range names {
		f.Add(mustRead(f, n))
	}
	for _, s := range []string{`{}`, `[]`, `null`, `{"session_id":1}`, `{"a":`, "{\"x\":\"\xff\"}",
		`{"session_id":"s","hook_event_name":"AfterTool","tool_name":"write_todos","tool_input":{"todos":[1,{"status":"blocked"}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := Decode(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		ev2, err := Decode(again)
		if err != nil {
			t.Fatalf("round trip does not decode: %v\n%s", err, again)
		}
		ev.Raw, ev2.Raw = nil, nil
		if !reflect.DeepEqual(compact(ev), compact(ev2)) {
			t.Fatalf("round trip changed the event:\n%+v\n%+v", ev, ev2)
		}
		msgs, err := Translate(ev, State{Announce: true, Host: "h", Plan: PlanText{Markdown: ev.Plan, Path: ev.PlanPath}})
		if ev.SessionID == "" {
			if err == nil {
				t.Fatal("an event without a session translated")
			}
			return
		}
		if err != nil || len(msgs) == 0 || len(msgs) > 6 {
			t.Fatalf("translate: %d messages, %v", len(msgs), err)
		}
		total := 0
		for _, m := range msgs {
			if !json.Valid(m) {
				t.Fatalf("invalid message %s", m)
			}
			total += len(m)
		}
		if total > 64<<10+8*len(b) {
			t.Fatalf("translation is %d bytes for a %d-byte event", total, len(b))
		}
	})
}

// compact normalises the raw JSON fields, which marshalling re-indents.
func compact(ev Event) Event {
	for _, p := range []*json.RawMessage{&ev.ToolInput, &ev.ToolResponse} {
		var v any
		if json.Unmarshal(*p, &v) == nil {
			*p, _ = json.Marshal(v)
		}
	}
	return ev
}

// FuzzCheckAnswer: whatever CheckAnswer lets through is empty or a deny with a reason, which
// is exactly what Gemini CLI reads as a refusal.
func FuzzCheckAnswer(f *testing.F) {
	f.Add([]byte(``))
	f.Add(Answer(Decision{Deny: true, Reason: "no"}))
	f.Add([]byte(`{"decision":"allow"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if CheckAnswer(b) != nil || len(b) == 0 {
			return
		}
		var v struct{ Decision, Reason string }
		if json.Unmarshal(b, &v) != nil || v.Decision != "deny" || v.Reason == "" {
			t.Fatalf("accepted %q", b)
		}
	})
}

// geminiHooks counts the hook objects in a settings file's groups, plandash's and the user's
// (compacted), read as Gemini CLI reads the file: of duplicate keys, the last.
func geminiHooks(b []byte) (users map[string]int, ours int) {
	users = map[string]int{}
	top, err := settingsfile.ParseFile("settings.json", b)
	if err != nil {
		return users, 0
	}
	raw, _ := top.Get("hooks")
	hooks, _ := settingsfile.ParseObject(raw)
	last := map[string]int{}
	for i, m := range hooks {
		last[m.Key] = i
	}
	for i, m := range hooks {
		if last[m.Key] != i {
			continue
		}
		groups, _ := settingsfile.ParseArray(m.Value)
		for _, g := range groups {
			for _, h := range settingsfile.GroupHooks(g) {
				if (settingsfile.Hooks{Agent: "gemini"}).IsOurs(h) {
					ours++
				} else {
					users[settingsfile.Compact(h)]++
				}
			}
		}
	}
	return users, ours
}

// FuzzMergeHooks installs and removes plandash's hooks in any settings file: the output is a
// JSON object holding plandash's eight hooks and every hook and top-level key of the user's, a
// second install changes nothing, and removal leaves no plandash hook. A file without hooks,
// in any layout, comes back byte for byte from an install and an uninstall.
func FuzzMergeHooks(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"hooks":null}`, `{"theme":"dark","hooks":{"BeforeTool":[{"matcher":"x","hooks":[{"command":"audit.sh"},{"command":"plandash hook gemini"}]}]}}`,
		`{"a":1,"a":2,"hooks":{"AfterTool":[]}}`, `{"general":{"vimMode":true},"ui":{"theme":"<dark>"}}`,
		"{\n\t\"general\": {\"vimMode\": true},\r\n\t\"ui\" : {}\n}\n"} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, gate bool) {
		want := desired(InstallOptions{Gate: gate, Server: "http://h:1"})
		out, _, err := mergeHooks(in, want)
		if err != nil {
			return
		}
		before, _ := geminiHooks(in)
		after, ours := geminiHooks(out)
		if ours != 8 {
			t.Fatalf("%d plandash hooks, want 8:\n%s", ours, out)
		}
		for h, n := range before {
			if after[h] < n {
				t.Fatalf("lost the user's hook %s:\n%s\n→\n%s", h, in, out)
			}
		}
		top, _ := settingsfile.ParseFile("settings.json", in)
		res, err := settingsfile.ParseFile("settings.json", out)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range top {
			if v, _ := top.Get(m.Key); m.Key != "hooks" {
				if got, ok := res.Get(m.Key); !ok || settingsfile.Compact(got) != settingsfile.Compact(v) {
					t.Fatalf("key %q lost or changed: %s → %s", m.Key, v, got)
				}
			}
		}
		if again, changed, err := mergeHooks(out, want); err != nil || changed || !bytes.Equal(again, out) {
			t.Fatalf("second install: %v %v", changed, err)
		}
		clean, _, err := mergeHooks(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		left, ours := geminiHooks(clean)
		if ours != 0 {
			t.Fatalf("plandash hooks left:\n%s", clean)
		}
		for h, n := range before {
			if left[h] < n {
				t.Fatalf("uninstall lost the user's hook %s", h)
			}
		}
		if _, has := top.Get("hooks"); len(top) > 0 && !has {
			if !bytes.Equal(clean, in) {
				t.Fatalf("install then uninstall changed the file:\n%s\n→\n%s", in, clean)
			}
		}
	})
}
