package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// FuzzDecode feeds Decode arbitrary payloads: it never panics, what it accepts marshals back
// into a payload that decodes to the same known fields, and the translation of any accepted
// event is a bounded batch of messages that are each valid JSON.
func FuzzDecode(f *testing.F) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".json" {
			f.Add(fixture(f, e.Name()))
		}
	}
	for _, s := range []string{`{}`, `[]`, `{"session_id":1}`, `{"a":`, "{\"x\":\"\xff\"}", `{"session_id":"s","hook_event_name":"TaskCompleted","taskId":1e3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := Decode(b)
		if err != nil {
			return
		}
		if len(ev.Raw) > len(b) {
			t.Fatalf("Raw grew: %d > %d", len(ev.Raw), len(b))
		}
		again, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		ev2, err := Decode(again)
		if err != nil {
			t.Fatalf("round trip does not decode: %v\n%s", err, again)
		}
		if a, b := known(ev), known(ev2); !reflect.DeepEqual(a, b) {
			t.Fatalf("round trip changed the event:\n%+v\n%+v", a, b)
		}
		msgs, err := Translate(ev, State{Announce: true, Host: "h"})
		if ev.SessionID == "" {
			if err == nil {
				t.Fatal("an event without a session translated")
			}
			return
		}
		if err != nil || len(msgs) == 0 || len(msgs) > 8 {
			t.Fatalf("translate: %d messages, %v", len(msgs), err)
		}
		total := 0
		for _, m := range msgs {
			if !json.Valid(m) {
				t.Fatalf("invalid message %s", m)
			}
			total += len(m)
		}
		if total > 256<<10+8*len(ev.SessionID)+4*len(ev.Cwd)+4*len(ev.TranscriptPath)+4*len(ev.Host)+4*len(ev.HookEventName)+4*len(ev.ToolName)+len(b)*2 && total > 512<<10 {
			t.Fatalf("translation is %d bytes for a %d-byte event", total, len(b))
		}
	})
}

// userHooks lists the hook objects of a settings file that are not plandash's, compacted, and
// how many of plandash's there are. It reads the file as Claude Code does: of duplicate keys,
// the last (encoding/json would merge duplicate objects).
func userHooks(t *testing.T, settings []byte) (map[string]int, int) {
	t.Helper()
	users, ours := map[string]int{}, 0
	top, err := settingsfile.ParseFile("settings.json", settings)
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
			continue // an earlier duplicate
		}
		groups, _ := settingsfile.ParseArray(m.Value)
		for _, g := range groups {
			for _, h := range settingsfile.GroupHooks(g) {
				if (settingsfile.Hooks{Agent: "claude"}).IsOurs(h) {
					ours++
				} else {
					users[settingsfile.Compact(h)]++
				}
			}
		}
	}
	return users, ours
}

// FuzzMerge installs and removes plandash's hooks in arbitrary settings files: the output is
// always valid JSON, keeps every hook and top-level key of the user's, a second install
// changes nothing, and removal leaves no plandash hook behind. A file without hooks, in any
// layout, comes back byte for byte from an install and an uninstall.
func FuzzMerge(f *testing.F) {
	for _, s := range []string{userSettings, ``, `{}`, `{"hooks":null}`, `{"hooks":{"Stop":[1,{"hooks":"x"},{"hooks":[{"command":"plandash hook claude"}]}]}}`,
		`{"a":1,"a":2}`, `{"model":"x","env":{"A":"<b>"}}`, "{\n    \"model\": \"x\",\n    \"env\": {\"A\": \"<b>\"}\n}\n", `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"x"},{"command":"/p/plandash hook claude --data d"}]}]}}`} {
		f.Add([]byte(s), true, false)
	}
	f.Fuzz(func(t *testing.T, in []byte, gate, all bool) {
		opts := InstallOptions{Gate: gate, AllTools: all, Server: "http://h:1"}
		out, rep, err := mergeHooks(in, opts)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid output %q from %q", out, in)
		}
		before, _ := userHooks(t, in)
		after, ours := userHooks(t, out)
		for h, n := range before {
			if after[h] < n {
				t.Fatalf("lost user hook %s:\n%s\n→\n%s", h, in, out)
			}
		}
		if rep.Changed && ours == 0 {
			t.Fatalf("changed but installed nothing: %s", out)
		}
		if len(bytes.TrimSpace(in)) > 0 {
			var a, b map[string]json.RawMessage
			if json.Unmarshal(in, &a) == nil && json.Unmarshal(out, &b) == nil {
				for k, v := range a {
					if k != "hooks" && settingsfile.Compact(b[k]) != settingsfile.Compact(v) {
						t.Fatalf("key %q changed: %s → %s", k, v, b[k])
					}
				}
			}
		}
		if _, rep2, err := mergeHooks(out, opts); err != nil || rep2.Changed {
			t.Fatalf("second install: %+v %v\n%s", rep2, err, out)
		}
		clean, _, err := removeHooks(out)
		if err != nil || !json.Valid(clean) {
			t.Fatalf("remove: %v %q", err, clean)
		}
		left, n := userHooks(t, clean)
		if n != 0 {
			t.Fatalf("plandash hooks left: %s", clean)
		}
		for h, k := range before {
			if left[h] < k {
				t.Fatalf("remove lost user hook %s", h)
			}
		}
		if top, err := settingsfile.ParseFile("settings.json", in); err == nil && len(top) > 0 {
			if _, has := top.Get("hooks"); !has {
				if !bytes.Equal(clean, in) {
					t.Fatalf("install then uninstall changed the file:\n%s\n→\n%s", in, clean)
				}
			}
		}
	})
}

// FuzzWithPlan: whatever tool_input Claude Code sent, an approval of an edited plan is a valid
// allow whose updatedInput is an object carrying exactly the edit, with the input's other
// members kept.
func FuzzWithPlan(f *testing.F) {
	for _, s := range []string{`{"plan":"# P","planFilePath":"/p.md"}`, ``, `{}`, `[1]`, `{"plan":1,"plan":2}`, `{"a":`, "{\"x\":\"\xff\"}", `null`} {
		f.Add([]byte(s), "# Edited\n1. step")
	}
	f.Fuzz(func(t *testing.T, in []byte, plan string) {
		out := Answer(ApproveEdited(in, plan, ""))
		if strings.TrimSpace(plan) == "" {
			return // the plan is kept as it was: covered by the allow path's own checks
		}
		if err := CheckAnswer(out); err != nil {
			t.Fatalf("%v: %s from %q", err, out, in)
		}
		var got hookOut
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(got.Out.Decision.UpdatedInput, &m); err != nil {
			t.Fatalf("updatedInput %s is not an object: %v", got.Out.Decision.UpdatedInput, err)
		}
		// JSON carries only valid UTF-8: the edit arrives as encoding/json spells it.
		wantJSON, _ := json.Marshal(plan)
		var p, want string
		if err := json.Unmarshal(wantJSON, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(m["plan"], &p); err != nil || p != want {
			t.Fatalf("updatedInput.plan = %q (%v), want %q", p, err, want)
		}
		var orig map[string]json.RawMessage
		if json.Unmarshal(in, &orig) == nil {
			for k := range orig {
				if _, ok := m[k]; !ok {
					t.Fatalf("member %q of the input was dropped: %s", k, got.Out.Decision.UpdatedInput)
				}
			}
		}
	})
}
