package hookkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// poster answers every post with answer or err, after delay (or when the post's context ends),
// and records what it was given.
type poster struct {
	answer []byte
	err    error
	delay  time.Duration
	posts  int
	body   []byte
	wait   bool
}

func (p *poster) Post(ctx context.Context, body []byte, wait bool) ([]byte, error) {
	p.posts++
	p.body, p.wait = body, wait
	if p.delay > 0 {
		t := time.NewTimer(p.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return p.answer, p.err
}

// spec is a toy agent: {"kind":"capture"|"wait"|"question"|"skip"}; a wait's answer must be
// {"ok":…}, and its fallback prints {"undecided":…}.
func spec(stderr io.Writer) Spec {
	return Spec{
		Agent: "toy", MaxEvent: 1 << 10, CaptureTimeout: time.Second, GateTimeout: time.Second, Stderr: stderr,
		Prepare: func(_ context.Context, event []byte, _ *slog.Logger) (Post, error) {
			var ev struct{ Kind string }
			if err := json.Unmarshal(event, &ev); err != nil {
				return Post{}, err
			}
			body := AddFields(event, map[string]any{"plandash_host": "box"})
			switch ev.Kind {
			case "capture":
				return Post{Kind: Capture, Body: body, Name: ev.Kind}, nil
			case "question":
				return Post{Kind: Wait, Body: body, Name: ev.Kind, Check: checkOK}, nil
			case "wait":
				return Post{Kind: Wait, Body: body, Name: ev.Kind, Check: checkOK, Fallback: func(m Miss) ([]byte, string) {
					why := m.Reason("plan")
					b, _ := json.Marshal(map[string]string{"undecided": why})
					return b, why + "; the plan is left to you"
				}}, nil
			}
			return Post{Kind: Skip}, nil
		},
	}
}

func checkOK(b []byte) error {
	var v struct{ OK *bool }
	if err := json.Unmarshal(b, &v); err != nil || v.OK == nil {
		return errors.New("not an ok answer")
	}
	return nil
}

func TestRun(t *testing.T) {
	tests := []struct {
		name      string
		in        io.Reader
		p         poster
		gate      time.Duration // the Spec's GateTimeout when set
		posts     int
		wait      bool
		out       string // printed, exactly
		stderrHas string // "" when stderr must stay empty
	}{
		{name: "capture", in: strings.NewReader(`{"kind":"capture"}`), p: poster{answer: []byte(`ignored`)}, posts: 1},
		{name: "a capture that fails", in: strings.NewReader(`{"kind":"capture"}`), p: poster{err: errors.New("refused")}, posts: 1},
		{name: "a capture the server sits on", in: strings.NewReader(`{"kind":"capture"}`), p: poster{delay: time.Hour}, posts: 1},
		{name: "skip", in: strings.NewReader(`{"kind":"skip"}`), p: poster{answer: []byte(`{"ok":true}`)}},
		{name: "decided", in: strings.NewReader(`{"kind":"wait"}`), p: poster{answer: []byte(" {\"ok\":true}\n")}, posts: 1, wait: true, out: `{"ok":true}`},
		{name: "server down", in: strings.NewReader(`{"kind":"wait"}`), p: poster{err: errors.New("connection refused")}, posts: 1, wait: true,
			out: `{"undecided":"plandash could not get a decision on this plan: connection refused"}`, stderrHas: "plandash hook toy: plandash could not get a decision on this plan: connection refused; the plan is left to you\n"},
		{name: "server slow", in: strings.NewReader(`{"kind":"wait"}`), p: poster{delay: time.Hour}, gate: 20 * time.Millisecond, posts: 1, wait: true,
			out: `{"undecided":"plandash could not get a decision on this plan: context deadline exceeded"}`, stderrHas: "deadline exceeded; the plan is left to you"},
		{name: "a garbled answer", in: strings.NewReader(`{"kind":"wait"}`), p: poster{answer: []byte(`{"ok":tr`)}, posts: 1, wait: true,
			out: `{"undecided":"plandash's answer on this plan was unusable: not an ok answer"}`, stderrHas: "was unusable: not an ok answer"},
		{name: "a question answered", in: strings.NewReader(`{"kind":"question"}`), p: poster{answer: []byte(`{"ok":false}`)}, posts: 1, wait: true, out: `{"ok":false}`},
		{name: "a question without an answer", in: strings.NewReader(`{"kind":"question"}`), p: poster{err: errors.New("refused")}, posts: 1, wait: true,
			stderrHas: "plandash hook toy: no answer from plandash (refused); answer the question here"},
		{name: "a question answered in a foreign shape", in: strings.NewReader(`{"kind":"question"}`), p: poster{answer: []byte(`{"decision":"allow"}`)}, posts: 1, wait: true,
			stderrHas: "no answer from plandash (not an ok answer)"},
		{name: "not an event", in: strings.NewReader(`not json`), p: poster{answer: []byte(`{"ok":true}`)}},
		{name: "an oversize event", in: bytes.NewReader(append([]byte(`{"kind":"wait","pad":"`), make([]byte, 1<<10)...)), p: poster{answer: []byte(`{"ok":true}`)}},
		{name: "an unreadable event", in: iotestErr{}, p: poster{answer: []byte(`{"ok":true}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, stderr bytes.Buffer
			s := spec(&stderr)
			if tt.gate > 0 {
				s.GateTimeout = tt.gate
			}
			if tt.p.delay > 0 && tt.gate == 0 {
				s.CaptureTimeout = 20 * time.Millisecond
			}
			p := tt.p
			Run(context.Background(), tt.in, &out, &p, s)
			if p.posts != tt.posts || p.wait != tt.wait {
				t.Fatalf("posted %d times (wait %v), want %d (wait %v)", p.posts, p.wait, tt.posts, tt.wait)
			}
			if p.posts > 0 && !bytes.Contains(p.body, []byte(`"plandash_host":"box"`)) {
				t.Errorf("posted %s without the host", p.body)
			}
			if out.String() != tt.out {
				t.Errorf("printed %q, want %q", out.String(), tt.out)
			}
			if !strings.Contains(stderr.String(), tt.stderrHas) || (tt.stderrHas == "" && stderr.Len() > 0) {
				t.Errorf("stderr %q, want it to hold %q", stderr.String(), tt.stderrHas)
			}
		})
	}
}

// TestRunDefaults: a Spec without timeouts, log or stderr still runs, and a stdin nobody closes
// is given up on within the capture timeout.
func TestRunDefaults(t *testing.T) {
	s := spec(nil)
	s.CaptureTimeout, s.GateTimeout = 0, 0
	var out bytes.Buffer
	p := poster{err: errors.New("refused")}
	Run(context.Background(), strings.NewReader(`{"kind":"wait"}`), &out, &p, s)
	if p.posts != 1 || !strings.Contains(out.String(), "undecided") {
		t.Fatalf("posts %d, printed %q", p.posts, out.String())
	}

	r, w := io.Pipe()
	defer w.Close()
	s.CaptureTimeout = 20 * time.Millisecond
	p = poster{}
	Run(context.Background(), r, &out, &p, s)
	if p.posts != 0 {
		t.Fatalf("posted %d times from a stdin left open", p.posts)
	}
}

// TestRunWriteFails: an answer that cannot be printed is logged, never a failure or a panic.
func TestRunWriteFails(t *testing.T) {
	var log bytes.Buffer
	s := spec(nil)
	s.Log = slog.New(slog.NewTextHandler(&log, nil))
	Run(context.Background(), strings.NewReader(`{"kind":"wait"}`), failWriter{}, &poster{answer: []byte(`{"ok":true}`)}, s)
	if !strings.Contains(log.String(), "write the answer") {
		t.Fatalf("log %q", log.String())
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("stdin broke") }

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

func TestAddFields(t *testing.T) {
	for _, tt := range []struct {
		in   string
		add  map[string]any
		want string
	}{
		{`{"a":1}`, nil, `{"a":1}`},
		{`{"b":1,"a":2}`, map[string]any{"plandash_host": "box", "n": true}, `{"a":2,"b":1,"n":true,"plandash_host":"box"}`},
		{`{"plandash_host":"x"}`, map[string]any{"plandash_host": "box"}, `{"plandash_host":"box"}`},
		{`[1]`, map[string]any{"plandash_host": "box"}, `[1]`},
		{`null`, map[string]any{"plandash_host": "box"}, `null`},
		{`{"a":1}`, map[string]any{"bad": func() {}}, `{"a":1}`},
	} {
		if got := AddFields([]byte(tt.in), tt.add); string(got) != tt.want {
			t.Errorf("AddFields(%s, %v) = %s, want %s", tt.in, tt.add, got, tt.want)
		}
	}
}

// FuzzRun: whatever arrives on stdin and whatever the server answers, the runner never panics,
// and prints only an answer that passed its check, the fallback's, or nothing.
func FuzzRun(f *testing.F) {
	f.Add([]byte(`{"kind":"wait"}`), []byte(`{"ok":true}`), false)
	f.Add([]byte(`{"kind":"question"}`), []byte(`garbage`), false)
	f.Add([]byte(`{"kind":"capture"}`), []byte(``), true)
	f.Fuzz(func(t *testing.T, event, answer []byte, fail bool) {
		p := poster{answer: answer}
		if fail {
			p.err = errors.New("refused")
		}
		var out bytes.Buffer
		Run(context.Background(), bytes.NewReader(event), &out, &p, spec(nil))
		if out.Len() == 0 {
			return
		}
		if checkOK(out.Bytes()) != nil && !bytes.HasPrefix(out.Bytes(), []byte(`{"undecided":`)) {
			t.Fatalf("printed %q for event %q, answer %q", out.String(), event, answer)
		}
	})
}
