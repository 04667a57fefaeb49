package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

// FuzzReadSSE feeds the stream reader and the event decoder arbitrary bytes: no panic, every
// event handed on is within the bound, and every decoded event has a type and translates its
// todos into valid entries.
func FuzzReadSSE(f *testing.F) {
	if b, err := os.ReadFile("testdata/captured.jsonl"); err == nil {
		var sse bytes.Buffer
		for _, line := range bytes.Split(b, []byte("\n")) {
			sse.WriteString("data: ")
			sse.Write(line)
			sse.WriteString("\n\n")
		}
		f.Add(sse.Bytes())
	}
	f.Add([]byte("data: {\"type\":\"todo.updated\",\"properties\":{\"sessionID\":\"s\",\"todos\":[{\"status\":\"x\"}]}}\n\n"))
	f.Add([]byte(": comment\nevent: x\ndata:\ndata: {}\n\nretry: 5\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = ReadSSE(bytes.NewReader(b), func(data []byte) {
			if len(data) > MaxEventBytes {
				t.Fatalf("event of %d bytes", len(data))
			}
			ev, err := DecodeEvent(data)
			if err != nil {
				return
			}
			if ev.Type == "" {
				t.Fatal("decoded an event without a type")
			}
			var p TodoUpdated
			if json.Unmarshal(ev.Properties, &p) == nil {
				for _, e := range TodoEntries(p.Todos) {
					if e.Status == "" || e.Priority == "" {
						t.Fatalf("entry %+v", e)
					}
				}
			}
			var q QuestionAsked
			if json.Unmarshal(ev.Properties, &q) == nil {
				PlanExit(q)
			}
		})
	})
}

// FuzzDecodeHook feeds the plugin's post decoder arbitrary bodies: no panic, a decoded event
// always has a type, and a service without a gate answers every decodable body at once with
// nothing or refuses it as invalid.
func FuzzDecodeHook(f *testing.F) {
	f.Add([]byte(`{"type":"todo.updated","properties":{"sessionID":"s","todos":[{"content":"a","status":"x"}]},"directory":"/p","host":"h"}`))
	f.Add([]byte(`{"type":"question.asked","properties":{"id":"q","sessionID":"s","questions":[{"question":"Plan at p.md is complete. Would you like to switch to the build agent?"}]}}`))
	f.Add([]byte(`{"type":"session.created","properties":{"info":{"id":"s","directory":"/p"}}}`))
	f.Add([]byte(`{"type":""}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := DecodeHook(b)
		if err != nil {
			return
		}
		if ev.Type == "" {
			t.Fatal("decoded an event without a type")
		}
		s := NewHookService(discardApplier{}, nil, HookConfig{Host: "h"})
		out, err := s.Handle(context.Background(), b)
		if len(out) != 0 {
			t.Fatalf("answered %q without a gate", out)
		}
		if err != nil && errs.KindOf(err) != errs.Invalid {
			t.Fatalf("error of kind %v: %v", errs.KindOf(err), err)
		}
	})
}

// discardApplier accepts every batch.
type discardApplier struct{}

func (discardApplier) Apply(context.Context, *plans.Stream, []plans.Item) (plans.Result, error) {
	return plans.Result{}, nil
}
