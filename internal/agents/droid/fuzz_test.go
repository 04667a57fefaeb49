package droid

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// FuzzTranslate: whatever a hook sends, Decode either refuses it with an error naming the
// payload or Translate gives ACP lines that decode, each bounded.
func FuzzTranslate(f *testing.F) {
	if names, err := filepath.Glob(filepath.Join("testdata", "captured", "*.json")); err == nil {
		for _, n := range names {
			if b, err := os.ReadFile(n); err == nil {
				f.Add(b)
			}
		}
	}
	for _, s := range []string{``, `null`, `[]`, `{"session_id":"s"}`, `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":5}}`,
		`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"ExitSpecMode","tool_input":{"plan":"x"},"tool_response":7}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := Decode(b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "droid hook payload: ") {
				t.Fatalf("error without its subject: %v", err)
			}
			return
		}
		msgs, err := Translate(ev, State{Announce: true, Host: "h"})
		if ev.SessionID == "" {
			if err == nil {
				t.Fatal("no session, no error")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if _, err := acp.DecodeLine(m); err != nil {
				t.Fatalf("line %s does not decode: %v", m, err)
			}
			if len(m) > maxPlanText*2+4*maxRawEvent+len(ev.SessionID)*8+64<<10 {
				t.Fatalf("line of %d bytes", len(m))
			}
		}
	})
}

// FuzzTodos: any TodoWrite input gives a bounded list or an error, never a panic.
func FuzzTodos(f *testing.F) {
	for _, s := range []string{`{"todos":"1. [completed] a\n2. [in_progress] b"}`, `{"todos":[{"content":"a"}]}`, `{"todos":"[{\"content\":1}]"}`, `{"todos":"1."}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		todos, err := Todos(b)
		if err != nil {
			return
		}
		if len(todos) > maxTodos {
			t.Fatalf("%d todos", len(todos))
		}
		for _, e := range TodoEntries(todos) {
			if len(e.Content) > maxTodoBytes+len("…") || e.Content == "" || e.Status == "" {
				t.Fatalf("entry %+v", e)
			}
		}
	})
}

// FuzzQuestions: any questionnaire gives bounded questions whose answer the hook accepts, or an
// error.
func FuzzQuestions(f *testing.F) {
	for _, s := range []string{"1. [question] Which? (multi)\n[topic] T\n[option] A\n[option] B", "[question]", "[option] A", "2) [Question] x"} {
		b, _ := json.Marshal(map[string]string{"questionnaire": s})
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		qs, err := Questions(b)
		if err != nil {
			return
		}
		answers := map[string][]string{}
		for _, q := range qs {
			if strings.TrimSpace(q.Question) == "" {
				t.Fatalf("empty question in %+v", qs)
			}
			answers[q.Question] = []string{"x"}
		}
		if err := CheckQuestionAnswer(QuestionAnswer(qs, answers)); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzInstall: in any settings file MergeHooks accepts, installing leaves a JSON object with
// every key of the user's, installing again changes nothing, and uninstalling removes every
// plandash hook; a file as Droid writes it with none of plandash's hooks comes back byte for
// byte.
func FuzzInstall(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"customModels":[],"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`,
		`{"hooks":{"PreToolUse":[{"matcher":"ExitSpecMode","hooks":[{"type":"command","command":"plandash hook droid"}]}]}}`, `[1]`, `{"a":1,"a":2}`} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, gate bool) {
		h := func(want map[string][]json.RawMessage) settingsfile.Hooks {
			return settingsfile.Hooks{Agent: AgentName, Events: HookEventNames(), Groups: want}
		}
		out, _, err := settingsfile.MergeHooks("settings.json", in, h(desired(InstallOptions{Gate: gate})))
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid output %q", out)
		}
		if again, ch, err := settingsfile.MergeHooks("settings.json", out, h(desired(InstallOptions{Gate: gate}))); err != nil || ch.Changed() || !bytes.Equal(again, out) {
			t.Fatalf("second install changed it: %v\n%s", err, again)
		}
		clean, _, err := settingsfile.MergeHooks("settings.json", out, h(nil))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(clean, []byte("hook droid")) && !bytes.Contains(in, []byte("hook droid")) {
			t.Fatalf("plandash hooks left:\n%s", clean)
		}
		if top, err := settingsfile.ParseFile("settings.json", in); err == nil && len(top) > 0 {
			if _, has := top.Get("hooks"); !has {
				canon := settingsfile.Indent(top.Marshal())
				o, _, _ := settingsfile.MergeHooks("settings.json", canon, h(desired(InstallOptions{Gate: gate})))
				if back, _, err := settingsfile.MergeHooks("settings.json", o, h(nil)); err != nil || !bytes.Equal(back, canon) {
					t.Fatalf("install then uninstall changed the file (%v):\n%s\n→\n%s", err, canon, back)
				}
			}
		}
	})
}
