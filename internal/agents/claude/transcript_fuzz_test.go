package claude

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
)

// recordingApplier takes batches without a store: every session is new.
type recordingApplier struct{ items int }

func (r *recordingApplier) Apply(_ context.Context, _ *plans.Stream, items []plans.Item) (plans.Result, error) {
	r.items += len(items)
	return plans.Result{Applied: len(items)}, nil
}

func (r *recordingApplier) Session(context.Context, string) (plans.SessionDetail, error) {
	return plans.SessionDetail{}, errs.New(errs.NotFound, "no session")
}

// FuzzTranscriptLine feeds DecodeTranscriptLine arbitrary lines (seeded with every line of the
// real transcripts in testdata): it never panics, what it keeps is bounded (a tool's input only
// for plan tools, prompts and text cut), and the translation of what it keeps is a batch of
// messages that each decode as ACP.
func FuzzTranscriptLine(f *testing.F) {
	for _, name := range []string{"transcript_tasks.jsonl", "transcript_todos.jsonl", "transcript_plan.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f.Add(bytes.Clone(sc.Bytes()))
		}
	}
	for _, s := range []string{`{}`, `[]`, `{"type":"user","message":{"content":7}}`, `{"type":"assistant","message":{"usage":{"input_tokens":-5}}}`,
		`{"type":"user","type":"assistant"}`, "{\"type\":\"user\",\"message\":{\"content\":\"\xff\"}}",
		`{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1"}]},"toolUseResult":{"task":{"id":"1"}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeTranscriptLine(b, 1)
		if err != nil {
			return
		}
		if len(l.Prompt) > maxPromptText+4 || len(l.Text) > maxPromptText+4 || len(l.Result) > maxPlanInput || len(l.SessionID) > 255 {
			t.Fatalf("unbounded line: prompt %d text %d result %d", len(l.Prompt), len(l.Text), len(l.Result))
		}
		for _, tool := range l.Tools {
			if len(tool.Input) > 0 && !isPlanTool(tool.Name) {
				t.Fatalf("kept the input of %q", tool.Name)
			}
		}
		if l.Usage != nil && (l.Usage.Input < 0 || l.Usage.Output < 0 || l.Usage.CacheRead < 0 || l.Usage.CacheCreation < 0) {
			t.Fatalf("negative usage %+v", l.Usage)
		}
		rec := &recordingApplier{}
		svc := NewService(rec, nil, Config{Host: "h"})
		p := svc.newTranscriptParser("/p/s.jsonl", "", "")
		// Twice: a call on one line, its result on the next.
		for range 2 {
			if err := p.Line(b, 1); err != nil {
				t.Fatalf("Line refused what DecodeTranscriptLine took: %v", err)
			}
		}
		st := p.st.clone()
		var lines []TranscriptLine
		lines = append(lines, p.lines...)
		var out [][]byte
		spy := &batchSpy{svc: svc}
		if err := spy.translate(context.Background(), &st, lines, &out); err != nil {
			t.Fatal(err)
		}
		for _, m := range out {
			if !json.Valid(m) {
				t.Fatalf("invalid message %q", m)
			}
			if _, err := acp.DecodeLine(m); err != nil {
				t.Fatalf("message does not decode: %v\n%s", err, m)
			}
		}
		if err := p.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// batchSpy captures the messages applyTranscript builds.
type batchSpy struct{ svc *Service }

func (s *batchSpy) translate(ctx context.Context, st *transcriptState, lines []TranscriptLine, out *[][]byte) error {
	cap := &captureApplier{}
	svc := NewService(cap, nil, Config{Host: "h"})
	if err := svc.applyTranscript(ctx, "/p/s.jsonl", st, lines); err != nil {
		return err
	}
	*out = cap.msgs
	return nil
}

type captureApplier struct{ msgs [][]byte }

func (c *captureApplier) Apply(_ context.Context, _ *plans.Stream, items []plans.Item) (plans.Result, error) {
	for _, it := range items {
		c.msgs = append(c.msgs, it.Msg.Raw)
	}
	return plans.Result{}, nil
}

func (c *captureApplier) Session(context.Context, string) (plans.SessionDetail, error) {
	return plans.SessionDetail{}, errs.New(errs.NotFound, "no session")
}
