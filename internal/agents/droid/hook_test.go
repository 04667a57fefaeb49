package droid

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// poster answers every post with answer, or fails with err.
type poster struct {
	answer []byte
	err    error
	posted [][]byte
}

func (p *poster) Post(_ context.Context, body []byte, _ bool) ([]byte, error) {
	p.posted = append(p.posted, body)
	return p.answer, p.err
}

// TestRunHookUndecided: a spec that gets no usable decision is never let through: the hook
// answers "ask", so Droid's own dialog decides, and says why.
func TestRunHookUndecided(t *testing.T) {
	spec := captured(t)[3]
	for name, p := range map[string]*poster{
		"server down":    {err: errors.New("connection refused")},
		"garbled answer": {answer: []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"yes"}}`)},
		"empty answer":   {},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := RunHook(context.Background(), bytes.NewReader(spec), &out, p, HookOptions{Host: "box", Stderr: &errOut}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), `"permissionDecision":"ask"`) || CheckAnswer(out.Bytes()) != nil {
				t.Errorf("stdout = %s", out.String())
			}
			if !strings.Contains(errOut.String(), "left to you") {
				t.Errorf("stderr = %q", errOut.String())
			}
			if len(p.posted) != 1 || !strings.Contains(string(p.posted[0]), `"plandash_host":"box"`) {
				t.Errorf("posted %q", p.posted)
			}
		})
	}
}

func TestRunHookPassesDecision(t *testing.T) {
	want := Answer(Decision{Reason: "Split it"})
	var out bytes.Buffer
	if err := RunHook(context.Background(), bytes.NewReader(captured(t)[3]), &out, &poster{answer: want}, HookOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("stdout = %s, want %s", out.Bytes(), want)
	}
}

// TestRunHookCapture: a capture prints nothing, whether the post works or not, and a payload
// that is not an event is not posted.
func TestRunHookCapture(t *testing.T) {
	for _, p := range []*poster{{}, {err: errors.New("down")}} {
		var out bytes.Buffer
		if err := RunHook(context.Background(), bytes.NewReader(captured(t)[2]), &out, p, HookOptions{CaptureTimeout: time.Second}); err != nil || out.Len() != 0 {
			t.Errorf("RunHook = %v, stdout %q", err, out.String())
		}
	}
	p := &poster{}
	var out bytes.Buffer
	if err := RunHook(context.Background(), strings.NewReader("not json"), &out, p, HookOptions{}); err != nil || out.Len() != 0 || len(p.posted) != 0 {
		t.Errorf("garbage: %v %q %d", err, out.String(), len(p.posted))
	}
}

// TestRunHookQuestion: a question's answer is printed when it has the right shape; otherwise
// nothing, and Droid's dialog asks.
func TestRunHookQuestion(t *testing.T) {
	q := captured(t)[5]
	qs, _ := Questions([]byte(`{"questionnaire":"1. [question] Which db?\n[option] SQLite"}`))
	good := QuestionAnswer(qs, map[string][]string{"Which db?": {"SQLite"}})
	for _, tt := range []struct {
		answer []byte
		want   string
	}{{good, string(good)}, {[]byte(`{"decision":"deny"}`), ""}} {
		var out bytes.Buffer
		if err := RunHook(context.Background(), bytes.NewReader(q), &out, &poster{answer: tt.answer}, HookOptions{}); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("stdout = %s, want %s", out.String(), tt.want)
		}
	}
}
