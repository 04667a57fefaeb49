package client

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"syscall"
	"time"
)

// Which failures are tried again, and why:
//
//   - connection refused: nothing reached the server (it is restarting), so any call is safe
//     to send again, as long as its body can be sent again;
//   - 503 with Retry-After: the server says it did not take the request (it answers so while it
//     shuts down gracefully), so again any call;
//   - the connection broke after the request went out (reset, closed before the answer, the
//     attempt's timeout): the server may have acted, so only calls that are idempotent: reads,
//     and writes the server deduplicates (an approval with a client-chosen id, a decision with a
//     key, a permission offer or its end). Ingest is not: the same frames twice are applied
//     twice.
//
// A long poll is a read that is retried until its wait has passed, whatever the attempt count.

// maxRetryAfter bounds how long the client honours a server's Retry-After.
const maxRetryAfter = 30 * time.Second

// mayRetry reports whether attempt number attempt of cl, which failed with err, is tried again.
func (c *Client) mayRetry(ctx context.Context, cl call, req *http.Request, err error, attempt int, deadline time.Time) bool {
	if ctx.Err() != nil || c.retry.Attempts <= 1 {
		return false
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false // a streamed body is gone
	}
	if deadline.IsZero() && attempt >= c.retry.Attempts || !deadline.IsZero() && !time.Now().Before(deadline) {
		return false
	}
	return retryable(err, cl.idempotent || cl.wait > 0)
}

func retryable(err error, idempotent bool) bool {
	if e, ok := errAs[*Error](err); ok {
		return e.Status == http.StatusServiceUnavailable && e.RetryAfter >= 0
	}
	te, ok := errAs[*transportError](err)
	if !ok {
		return false
	}
	if errors.Is(te.err, syscall.ECONNREFUSED) {
		return true
	}
	return idempotent && broken(te.err)
}

// broken reports whether err is a connection that failed after the request may have gone out.
func broken(err error) bool {
	var ne net.Error
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// pause is how long to wait before attempt+1: the server's Retry-After when it gave one,
// otherwise a doubling backoff with some jitter, so proxies that lost the same server do not
// all come back in the same millisecond.
func (c *Client) pause(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, maxRetryAfter)
	}
	d := c.retry.MinDelay
	for i := 1; i < attempt && d < c.retry.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, c.retry.MaxDelay)
	if d > 0 {
		d += rand.N(d/4 + 1)
	}
	return d
}

// parseRetryAfter reads a Retry-After header (seconds, or an HTTP date); -1 when there is none
// or it cannot be read.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return -1
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}

// transportError is a call that got no answer.
type transportError struct {
	method, url string
	err         error
	// unanswered: a write that is not tried again broke after it went out, so the server may
	// have acted on it.
	unanswered bool
}

func (e *transportError) Error() string {
	inner := e.err
	if ue, ok := errAs[*url.Error](inner); ok {
		inner = ue.Err // it repeats the method and URL, with the query
	}
	msg := e.method + " " + e.url + ": " + inner.Error()
	if errors.Is(inner, syscall.ECONNREFUSED) {
		msg += " (is plandash running there?)"
	}
	if _, ok := errAs[x509.UnknownAuthorityError](inner); ok {
		msg += " (a private CA signed the server's certificate? pass its PEM file with --ca or $PLANDASH_CA)"
	}
	if e.unanswered {
		msg += " (the connection broke before the answer: the server may have taken it; look before sending it again)"
	}
	return msg
}

func (e *transportError) Unwrap() error { return e.err }
