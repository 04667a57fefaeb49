package agenttest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Poster is the smallest client of a hook endpoint, for a test binary that runs as an agent's
// hook: it POSTs the payload to URL and returns the body.
type Poster struct{ URL string }

// Post posts body and returns the answer; a status other than 200 is an error.
func (p Poster) Post(ctx context.Context, body []byte, _ bool) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, b)
	}
	return b, err
}

// Handler is an agent's hook handler (its Service).
type Handler interface {
	Handle(ctx context.Context, body []byte) ([]byte, error)
}

// HookServer serves h as the agent's hook endpoint until the test ends: each POST's body is
// handled and the answer written back; a failure is a 400 with its message.
func HookServer(t testing.TB, h Handler) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ans, err := h.Handle(r.Context(), body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = w.Write(ans)
	}))
	t.Cleanup(hs.Close)
	return hs
}
