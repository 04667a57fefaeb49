package agenttest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/agents/agenttest"
)

type echo struct{}

func (echo) Handle(_ context.Context, body []byte) ([]byte, error) {
	if string(body) == "bad" {
		return nil, errors.New("unusable payload")
	}
	return append([]byte("got "), body...), nil
}

func TestHookServerAndPoster(t *testing.T) {
	hs := agenttest.HookServer(t, echo{})
	p := agenttest.Poster{URL: hs.URL}
	if b, err := p.Post(t.Context(), []byte("event"), false); err != nil || string(b) != "got event" {
		t.Fatalf("Post = %q, %v", b, err)
	}
	if _, err := p.Post(t.Context(), []byte("bad"), true); err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "unusable payload") {
		t.Fatalf("Post of a bad payload: %v; want the 400 and its message", err)
	}
}
