package codex

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/agents/settingsfile"
)

// FuzzRollout feeds arbitrary rollout bytes through DecodeAll and a Translator: it never
// panics, every accepted line re-encodes to one that decodes the same, every error names a line
// in range, and every translated message is valid JSON that the ACP decoder accepts, in a batch
// bounded by the lines given.
func FuzzRollout(f *testing.F) {
	f.Add(fixture(f, "exec_update_plan.jsonl"))
	for _, s := range []string{`{"type":"session_meta","payload":{"id":"t"}}`, "{\"type\":\"x\"}\n{bad\n", `{"type":""}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{}]}"}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"Plan","text":"<proposed_plan>x"}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lines, errs := DecodeAll(b)
		n := bytes.Count(b, []byte{'\n'}) + 1
		for _, e := range errs {
			if e.Line < 1 || e.Line > n {
				t.Fatalf("error on line %d of %d", e.Line, n)
			}
		}
		for _, l := range lines {
			again, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			l2, err := DecodeLine(again, l.Number)
			if err != nil || l2.Type != l.Type || !bytes.Equal(compactJSON(l2.Payload), compactJSON(l.Payload)) {
				t.Fatalf("round trip: %v\n%s", err, again)
			}
		}
		tr := NewTranslator("/s/rollout-2026-01-01T00-00-00-01a20aa7-d7b6-7ff1-af70-8cdc9cdb7757.jsonl", "h")
		msgs := tr.Translate(lines)
		if len(msgs) > 4+2*len(lines)+2 {
			t.Fatalf("%d messages for %d lines", len(msgs), len(lines))
		}
		for _, m := range msgs {
			if !json.Valid(m) {
				t.Fatalf("invalid message %s", m)
			}
			if _, err := acp.DecodeLine(m); err != nil {
				t.Fatalf("ACP decoder refuses %s: %v", m, err)
			}
		}
	})
}

// compactJSON normalises JSON (escapes, spacing) for comparison.
func compactJSON(b []byte) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	out, _ := json.Marshal(v)
	return out
}

// ourHooks counts plandash's hooks in hooks.Stop.
func ourHooks(t *testing.T, b []byte) int {
	var v struct {
		Hooks struct {
			Stop []struct {
				Hooks []json.RawMessage `json:"hooks"`
			} `json:"Stop"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	n := 0
	for _, g := range v.Hooks.Stop {
		for _, h := range g.Hooks {
			if (settingsfile.Hooks{Agent: "codex"}).IsOurs(h) {
				n++
			}
		}
	}
	return n
}

// FuzzHookEvent: DecodeHookEvent never panics; an accepted event keeps only plans that say
// something, and its Answer for any reason is what CheckAnswer accepts.
func FuzzHookEvent(f *testing.F) {
	f.Add([]byte(stopEvent("/x/rollout-a.jsonl", "<proposed_plan>\n# P\n</proposed_plan>", false)), "fix it")
	f.Add([]byte(`{"plandash_plan":{"kind":"items","steps":[{"step":"a"}]},"session_id":"s"}`), "")
	f.Add([]byte(`null`), " ")
	f.Fuzz(func(t *testing.T, b []byte, reason string) {
		ev, err := DecodeHookEvent(b)
		if err == nil && ev.Plan != nil && ev.Plan.Empty() {
			t.Fatalf("an empty plan was kept: %+v", ev.Plan)
		}
		if a := Answer(Decision{Block: true, Reason: reason}); CheckAnswer(a) != nil {
			t.Fatalf("Answer made %s, which CheckAnswer refuses", a)
		}
		if Answer(Decision{}) != nil {
			t.Fatal("no decision must print nothing")
		}
	})
}

// FuzzMergeHooks: merging never panics; on success the result is valid JSON holding exactly one
// plandash hook, merging again changes nothing, and removing leaves none. A file without hooks,
// in any layout, comes back byte for byte from an install and an uninstall.
func FuzzMergeHooks(f *testing.F) {
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"command":"plandash hook codex"},{"command":"y"}]}]},"a":[1]}`))
	f.Add([]byte(`{"hooks":null}`))
	f.Add([]byte(`{"model":"gpt-5","x":{"<":[1, 2]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := &InstallOptions{}
		out, _, err := mergeHooks(b, opts)
		if err != nil {
			return
		}
		if !json.Valid(out) || ourHooks(t, out) != 1 {
			t.Fatalf("merged:\n%s", out)
		}
		if _, changed, err := mergeHooks(out, opts); err != nil || changed {
			t.Fatalf("second merge changed=%v err=%v", changed, err)
		}
		gone, _, err := mergeHooks(out, nil)
		if err != nil || len(bytes.TrimSpace(gone)) > 0 && ourHooks(t, gone) != 0 {
			t.Fatalf("uninstall: %v\n%s", err, gone)
		}
		if top, err := settingsfile.ParseFile("hooks.json", b); err == nil && len(top) > 0 {
			if _, has := top.Get("hooks"); !has {
				if !bytes.Equal(gone, b) {
					t.Fatalf("install then uninstall changed the file:\n%s\n→\n%s", b, gone)
				}
			}
		}
	})
}
