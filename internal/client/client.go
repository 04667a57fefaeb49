// Package client is the one Go client of plandash's HTTP API, used by the commands that talk to
// a running server, the stdio proxy and the demo. It speaks the JSON the server speaks, turns
// every non-2xx answer into an *Error, and retries what is safe to retry when the server is
// restarting. It depends on the standard library only, so every room may use it.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxAnswer bounds a JSON answer read into memory. The largest the server sends is an approval
// request carrying a submitted and a modified plan (1 MiB each at most), escaped.
const maxAnswer = 16 << 20

// Client calls one plandash server. It is safe for concurrent use; its zero value is not usable,
// call New.
type Client struct {
	base    string // scheme://host[:port][/prefix], without a trailing slash
	token   func() (string, error)
	hc      *http.Client
	timeout time.Duration
	retry   Retry
	sleep   func(context.Context, time.Duration) error // time.Sleep honouring ctx; tests speed it up
}

// Option configures a Client.
type Option func(*Client)

// Retry is how often and how patiently a call is tried again when the answer says it may pass
// later (see retry.go for which answers those are).
type Retry struct {
	Attempts int           // tries in all, the first included; 1 or less tries once
	MinDelay time.Duration // the first pause, doubled after each failure
	MaxDelay time.Duration // the longest pause between tries, Retry-After included
}

// DefaultRetry rides out a server restart of a few seconds: five tries over about four seconds.
func DefaultRetry() Retry {
	return Retry{Attempts: 5, MinDelay: 200 * time.Millisecond, MaxDelay: 3 * time.Second}
}

// WithTokenFunc reads the token before every call instead of using New's: a server started after
// the client (by `plandash acp --serve`) creates its token file later. An error from it fails
// the call without sending it.
func WithTokenFunc(f func() (string, error)) Option { return func(c *Client) { c.token = f } }

// WithTimeout bounds each call but long polls, which are bounded by their wait (default 10 s; 0
// means no bound beyond the context's).
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithRetry sets the retry policy; Retry{} turns retries off, for callers that keep their own
// loop (the proxy's sink and broker).
func WithRetry(r Retry) Option { return func(c *Client) { c.retry = r } }

// WithHTTPClient makes the calls through hc, e.g. one whose idle connections its owner closes
// when it stops, so a server shutting down does not wait for them.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// New returns a client of the server at baseURL (e.g. http://127.0.0.1:7420) that presents token.
func New(baseURL, token string, opts ...Option) *Client {
	c := &Client{
		base:    strings.TrimRight(baseURL, "/"),
		token:   func() (string, error) { return token, nil },
		timeout: 10 * time.Second,
		retry:   DefaultRetry(),
		sleep:   sleepCtx,
	}
	for _, o := range opts {
		o(c)
	}
	if c.hc == nil {
		c.hc = &http.Client{}
	}
	return c
}

// With returns a copy of c with opts applied, sharing c's HTTP client (and so its connections).
func (c *Client) With(opts ...Option) *Client {
	cp := *c
	for _, o := range opts {
		o(&cp)
	}
	return &cp
}

// BaseURL is the server's address as given to New, without a trailing slash.
func (c *Client) BaseURL() string { return c.base }

// Health is the answer of GET /healthz.
type Health struct {
	Status string `json:"status"`
	Seq    uint64 `json:"seq"` // the server's change number
}

// Health asks whether the server is up; it needs no token.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	err := c.do(ctx, call{method: http.MethodGet, path: "/healthz", idempotent: true, noAuth: true}, &h)
	return h, err
}

// call is one request as the methods describe it.
type call struct {
	method, path string
	query        url.Values
	body         io.Reader // a *bytes.Reader, *bytes.Buffer or *strings.Reader can be sent again
	ctype        string
	// idempotent says sending it twice does no more than sending it once, so it may be tried
	// again after the connection broke while the server may have been working on it.
	idempotent bool
	// wait, for a long poll, is how long the server may hold the answer: the call is then
	// bounded by it rather than by the client's timeout, and retried until it passes.
	wait   time.Duration
	noAuth bool
	status *int // set to the answer's status, when not nil
	// keepBody, on a non-2xx answer, decodes the body into out as well (ingest's 400 carries
	// the per-line errors).
	keepBody func(status int) bool
}

// pollGrace is how much longer than its wait a long poll may take before the client gives up on
// that attempt: the server answers at the end of the wait, plus a round trip.
const pollGrace = 15 * time.Second

// do sends cl, retrying as the policy allows, and decodes a 2xx answer into out (nil discards it).
func (c *Client) do(ctx context.Context, cl call, out any) error {
	var deadline time.Time // for long polls: retry transparently until then
	if cl.wait > 0 {
		deadline = time.Now().Add(cl.wait)
		cl.query = maps.Clone(cl.query)
		if cl.query == nil {
			cl.query = url.Values{}
		}
	}
	var prev *http.Request
	for attempt := 1; ; attempt++ {
		if !deadline.IsZero() {
			// A retried poll waits only for what is left of the caller's wait.
			cl.query.Set("wait", max(time.Until(deadline), 0).Round(time.Millisecond).String())
		}
		req, err := c.request(ctx, cl, prev)
		if err != nil {
			return err
		}
		prev = req
		err = c.once(req, cl, out)
		if err == nil {
			return nil
		}
		if !c.mayRetry(ctx, cl, req, err, attempt, deadline) {
			if te, ok := errAs[*transportError](err); ok && cl.method != http.MethodGet && !cl.idempotent && broken(te.err) {
				te.unanswered = true
			}
			return err
		}
		var retryAfter time.Duration
		if e, ok := errAs[*Error](err); ok {
			retryAfter = e.RetryAfter
		}
		if serr := c.sleep(ctx, c.pause(attempt, retryAfter)); serr != nil {
			return err // the caller gave up; the last answer says more than "context canceled"
		}
	}
}

// request builds an attempt of cl; one after prev sends prev's body again (mayRetry made sure
// it can be).
func (c *Client) request(ctx context.Context, cl call, prev *http.Request) (*http.Request, error) {
	u := c.base + cl.path
	if len(cl.query) > 0 {
		u += "?" + cl.query.Encode()
	}
	body := cl.body
	if prev != nil && prev.GetBody != nil {
		rc, err := prev.GetBody()
		if err != nil {
			return nil, err
		}
		body = rc
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, u, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", cl.method, cl.path, err)
	}
	if prev != nil && prev.GetBody != nil {
		req.GetBody, req.ContentLength = prev.GetBody, prev.ContentLength
	}
	if !cl.noAuth {
		tok, err := c.token()
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if cl.ctype != "" {
		req.Header.Set("Content-Type", cl.ctype)
	}
	req.Header.Set("Accept", "application/json, application/problem+json")
	return req, nil
}

// once sends req and reads its answer.
func (c *Client) once(req *http.Request, cl call, out any) error {
	limit := c.timeout
	if cl.wait > 0 {
		limit = cl.wait + pollGrace
	}
	if limit > 0 {
		ctx, cancel := context.WithTimeout(req.Context(), limit)
		defer cancel()
		req = req.WithContext(ctx)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return &transportError{method: req.Method, url: c.base + cl.path, err: err}
	}
	defer resp.Body.Close()
	if cl.status != nil {
		*cl.status = resp.StatusCode
	}
	if resp.StatusCode/100 == 2 {
		return decodeAnswer(resp.Body, out)
	}
	e := readError(req.Method, c.base, cl.path, resp)
	if out != nil && cl.keepBody != nil && cl.keepBody(resp.StatusCode) && len(e.Body) > 0 {
		_ = json.Unmarshal(e.Body, out) // best effort: the error is what the caller acts on
	}
	return e
}

// decodeAnswer reads a bounded JSON answer into out; out nil drains what is left, bounded.
func decodeAnswer(r io.Reader, out any) error {
	lr := &io.LimitedReader{R: r, N: maxAnswer + 1}
	if out == nil {
		_, _ = io.Copy(io.Discard, lr)
		return nil
	}
	raw, err := io.ReadAll(lr)
	if err != nil {
		return fmt.Errorf("read the answer: %w", err)
	}
	if len(raw) > maxAnswer {
		return fmt.Errorf("the answer is over %d bytes", maxAnswer)
	}
	if b, ok := out.(*[]byte); ok { // the caller takes the bytes as they are
		*b = raw
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("the answer is not the JSON expected: %w", err)
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// jsonBody encodes v for a call.
func jsonBody(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	return b, nil
}

// member returns the string member name of the JSON object b, or "" when it has none.
func member(b []byte, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[name], &s) != nil {
		return ""
	}
	return s
}

// errAs is errors.As for the client's own error types.
func errAs[T error](err error) (T, bool) {
	var t T
	ok := errors.As(err, &t)
	return t, ok
}
