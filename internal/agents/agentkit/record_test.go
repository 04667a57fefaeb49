package agentkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/plans"
)

func TestSeenIsBounded(t *testing.T) {
	var s agentkit.Seen
	if s.Has("a") {
		t.Fatal("the zero Seen has a session")
	}
	s.Add("a")
	if !s.Has("a") {
		t.Fatal("Add did not keep the session")
	}
	for i := range agentkit.MaxSeen {
		s.Add(fmt.Sprint(i))
	}
	if s.Has("a") {
		t.Fatal("a full Seen was not forgotten")
	}
}

type fakeApplier struct {
	items []plans.Item
	res   plans.Result
	err   error
}

func (f *fakeApplier) Apply(_ context.Context, _ *plans.Stream, items []plans.Item) (plans.Result, error) {
	f.items = append(f.items, items...)
	return f.res, f.err
}

func (f *fakeApplier) SessionOnly(_ context.Context, id string) (plans.Session, error) {
	if id == "hooked" {
		return plans.Session{Via: []string{plans.ViaHooks}}, nil
	}
	return plans.Session{}, errors.New("no such session")
}

func TestRecord(t *testing.T) {
	update := json.RawMessage(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`)
	batch := json.RawMessage(`[` + string(update) + `,` + string(update) + `]`)
	var log bytes.Buffer
	f := &fakeApplier{res: plans.Result{Errors: []plans.ItemError{{Line: 2, Message: "refused"}}}}
	r := agentkit.Recorder{Plans: f, Log: slog.New(slog.NewTextHandler(&log, nil)), Name: "some", Hook: "some hook"}
	var seen agentkit.Seen
	if err := r.Record(t.Context(), &seen, "s1", "Stop", []json.RawMessage{update, batch}); err != nil {
		t.Fatal(err)
	}
	if len(f.items) != 3 || f.items[0].Line != 1 || f.items[1].Line != 2 || f.items[2].Line != 2 {
		t.Fatalf("applied %+v; want 3 items from lines 1, 2, 2", f.items)
	}
	if !seen.Has("s1") {
		t.Fatal("a recorded session is not seen")
	}
	if !strings.Contains(log.String(), "some hook: update not applied") || !strings.Contains(log.String(), "refused") {
		t.Fatalf("log = %q; want the update not applied", log.String())
	}

	err := r.Record(t.Context(), &seen, "s2", "Stop", []json.RawMessage{update, json.RawMessage(`{not json`)})
	if err == nil || !strings.HasPrefix(err.Error(), "some: translated message 2 does not decode") || seen.Has("s2") {
		t.Fatalf("Record of a bad line = %v (seen %v); want its error, the session not seen", err, seen.Has("s2"))
	}
	f.err = errors.New("store down")
	if err := r.Record(t.Context(), &seen, "s3", "Stop", []json.RawMessage{update}); !errors.Is(err, f.err) || seen.Has("s3") {
		t.Fatalf("Record with the store down = %v; want the store's error", err)
	}
}

func TestHooked(t *testing.T) {
	var seen agentkit.Seen
	seen.Add("s1")
	f := &fakeApplier{}
	for _, tc := range []struct {
		p    any
		key  string
		want bool
	}{
		{f, "s1", true}, {f, "hooked", true}, {f, "other", false}, {struct{}{}, "hooked", false}, {struct{}{}, "s1", true},
	} {
		if got := agentkit.Hooked(t.Context(), &seen, tc.p, tc.key); got != tc.want {
			t.Errorf("Hooked(%T, %q) = %v, want %v", tc.p, tc.key, got, tc.want)
		}
	}
}

func TestBatch(t *testing.T) {
	b := agentkit.Batch{SID: "s1", IDPrefix: "some-"}
	b.Request("initialize", map[string]any{"protocolVersion": 1}, map[string]any{"protocolVersion": 1})
	b.Request("session/prompt", map[string]any{"sessionId": "s1"}, nil)
	b.Update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "hi"}})
	b.Add(func() {}) // cannot be marshalled: left out
	want := []string{
		`{"id":"some-1","jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":1}}`,
		`{"id":"some-1","jsonrpc":"2.0","result":{"protocolVersion":1}}`,
		`{"id":"some-2","jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s1"}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"content":{"text":"hi","type":"text"},"sessionUpdate":"agent_message_chunk"}}}`,
	}
	if len(b.Out) != len(want) {
		t.Fatalf("Out has %d messages, want %d", len(b.Out), len(want))
	}
	for i, w := range want {
		if string(b.Out[i]) != w {
			t.Errorf("Out[%d] = %s\nwant %s", i, b.Out[i], w)
		}
	}
	f := &fakeApplier{}
	if _, err := agentkit.Apply(t.Context(), f, "some", b.Out); err != nil || len(f.items) != 4 || f.items[3].Line != 4 {
		t.Fatalf("Apply = %v, items %+v", err, f.items)
	}
}

func TestBatchSession(t *testing.T) {
	a := agentkit.Batch{SID: "s1", IDPrefix: "x-"}
	a.Initialize("plandash-hook", map[string]any{"name": "some", "title": "Some"})
	a.NewSession("/w", map[string]any{"host": "h"})
	b := agentkit.Batch{SID: "s1", IDPrefix: "x-"}
	b.Request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"plan": map[string]any{}},
		"clientInfo": map[string]any{"name": "plandash-hook"}},
		map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": "some", "title": "Some"}})
	b.Request("session/new", map[string]any{"cwd": "/w", "mcpServers": []any{}, "_meta": map[string]any{"plandash": map[string]any{"host": "h"}}},
		map[string]any{"sessionId": "s1"})
	if len(a.Out) != 4 || len(b.Out) != 4 {
		t.Fatalf("%d and %d messages, want 4", len(a.Out), len(b.Out))
	}
	for i := range a.Out {
		if string(a.Out[i]) != string(b.Out[i]) {
			t.Errorf("message %d = %s\nwant %s", i, a.Out[i], b.Out[i])
		}
	}
	if _, err := agentkit.Apply(t.Context(), &fakeApplier{}, "x", a.Out); err != nil {
		t.Fatal(err)
	}
}

func TestAtLatest(t *testing.T) {
	at := func(s string) time.Time {
		if s == "" {
			return time.Time{}
		}
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ctx := agentkit.AtLatest(t.Context(), []string{"2026-01-02T00:00:00Z", "", "2026-01-03T00:00:00Z", "2026-01-01T00:00:00Z"}, at)
	if got := plans.TimeOf(ctx); !got.Equal(at("2026-01-03T00:00:00Z")) {
		t.Errorf("TimeOf = %v, want the latest line's time", got)
	}
	if ctx := agentkit.AtLatest(t.Context(), []string{"", ""}, at); ctx != t.Context() {
		t.Error("lines without times changed ctx")
	}
}
