package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/client"
)

// unavailable is the server shutting down gracefully: it did not take the request.
func unavailable(retryAfter string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"title":"Service Unavailable","status":503,"detail":"shutting down"}`)
	}
}

// dropped is a server that read the request and went away before answering: it may have acted.
func dropped(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func TestRetry(t *testing.T) {
	sub := approval.Submission{Title: "Deploy", Plan: approval.PlanBody{Type: "markdown", Markdown: "# Ship"}}
	withID := sub
	withID.ID = "deploy-7"
	for _, tc := range []struct {
		name    string
		first   func(http.ResponseWriter, *http.Request)
		times   int32
		opts    []client.Option
		call    func(*client.Client) error
		retried bool
		status  int // of the error when not retried; 0 for a transport error
	}{
		{"503 with Retry-After, a read", unavailable("0"), 1, nil, count, true, 0},
		{"503 with Retry-After, an ingest", unavailable("0"), 1, nil, ingest(bytes.NewReader([]byte(transcript))), true, 0},
		{"503 twice with an HTTP date", unavailable(time.Now().UTC().Format(http.TimeFormat)), 2, nil, count, true, 0},
		{"503 without Retry-After", unavailable(""), 1, nil, count, false, 503},
		{"503 with Retry-After, a streamed ingest", unavailable("0"), 1, nil, ingest(io.MultiReader(strings.NewReader(transcript))), false, 503},
		{"503 with retries off", unavailable("0"), 1, []client.Option{client.WithRetry(client.Retry{})}, count, false, 503},
		{"dropped, a read", dropped, 1, nil, count, true, 0},
		{"dropped, an ingest", dropped, 1, nil, ingest(strings.NewReader(transcript)), false, 0},
		{"dropped, an approval with its id", dropped, 1, nil, create(withID), true, 0},
		{"dropped, an approval without id", dropped, 1, nil, create(sub), false, 0},
		{"dropped, a long poll", dropped, 3, nil, poll, true, 0},
		{"500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }, 1, nil, count, false, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			c := client.New(s.URL, token, append([]client.Option{fast}, tc.opts...)...)
			// A decided request, so that a poll that gets through returns at once.
			if _, _, err := c.CreateApproval(ctxT(t), approval.Submission{ID: "decided", Title: "Done", Plan: sub.Plan}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.DecideApproval(ctxT(t), "decided", approval.DecisionInput{Action: "approve"}); err != nil {
				t.Fatal(err)
			}
			s.hits.Store(0)
			s.answerFirst(tc.times, tc.first)
			err := tc.call(c)
			hits := s.hits.Load()
			if tc.retried {
				if err != nil || hits <= tc.times {
					t.Fatalf("err = %v after %d requests; want it retried past the %d failures", err, hits, tc.times)
				}
				if strings.HasSuffix(tc.name, "ingest") {
					// The body was sent again whole: the session it opens is there.
					if _, err := s.web.Plans.SessionOnly(ctxT(t), "s1"); err != nil {
						t.Errorf("the retried post was not applied: %v", err)
					}
				}
				return
			}
			if err == nil || hits != 1 {
				t.Fatalf("err = %v after %d requests; want a failure, not retried", err, hits)
			}
			if got := client.StatusOf(err); got != tc.status {
				t.Errorf("status %d, want %d (%v)", got, tc.status, err)
			}
			if unanswered := strings.Contains(err.Error(), "the server may have taken it"); unanswered != strings.HasPrefix(tc.name, "dropped") {
				t.Errorf("%v: says the server may have taken it: %v; want that only of a write cut after it went out", err, unanswered)
			}
		})
	}
}

func count(c *client.Client) error {
	_, err := c.ApprovalCount(context.Background())
	return err
}

func ingest(body io.Reader) func(*client.Client) error {
	return func(c *client.Client) error {
		_, err := c.Ingest(context.Background(), body, client.IngestOptions{Stream: "retry"})
		return err
	}
}

func create(sub approval.Submission) func(*client.Client) error {
	return func(c *client.Client) error {
		_, _, err := c.CreateApproval(context.Background(), sub)
		return err
	}
}

func poll(c *client.Client) error {
	a, err := c.WaitApproval(context.Background(), "decided", time.Minute)
	if err == nil && !a.Decided() {
		err = errors.New("polled " + a.ID)
	}
	return err
}
