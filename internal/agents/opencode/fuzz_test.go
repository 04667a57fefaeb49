package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
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
