package web

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/tokens"
)

// watchEvery is how often a request that stays open looks again at its per-agent token. With
// the tokens' own cache (tokens.CacheTTL) a revocation or an expiry on any instance ends it
// within a second.
const watchEvery = tokens.CacheTTL / 2

// submitterOf is tok as the gate knows a request's submitter.
func submitterOf(tok tokens.Token) approval.Submitter {
	return approval.Submitter{ID: tok.ID(), Label: tok.Label(), Since: tok.Created}
}

// watch serves r, made with the per-agent token tok, and ends it when the token is revoked or
// expires while it runs: its context is cancelled with the token's error as the cause, so a
// long poll stops waiting and a socket closes. A handler that had not answered yet is
// answered 401 instead of whatever it makes of its cancelled context. Short requests end before
// the first look and cost a timer.
func (a *Auth) watch(w http.ResponseWriter, r *http.Request, tok tokens.Token, next http.Handler) {
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	var (
		mu      sync.Mutex
		stopped bool
		timer   *time.Timer
	)
	look := func() {
		_, err := a.tokens.Current(ctx, tok.Name, tok.Hash)
		if errs.KindOf(err) == errs.Unauthorized {
			a.log.Info("ending a request: its token no longer holds", "token", tok.Name, "path", r.URL.Path, "why", err.Error())
			cancel(err)
			return
		}
		// A store failure is not the token's: the request goes on, and is looked at again.
		mu.Lock()
		if !stopped {
			timer.Reset(watchEvery)
		}
		mu.Unlock()
	}
	mu.Lock()
	timer = time.AfterFunc(watchEvery, look)
	mu.Unlock()
	defer func() {
		mu.Lock()
		stopped = true
		timer.Stop()
		mu.Unlock()
	}()
	rw := &revocable{ResponseWriter: w, ctx: ctx}
	next.ServeHTTP(rw, r.WithContext(ctx))
	if !rw.wrote && !rw.hijacked && revokedCause(ctx) != nil {
		rw.WriteHeader(http.StatusOK) // answers the refusal instead
	}
}

// revokedCause is why ctx was ended by its token, or nil.
func revokedCause(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil && errs.KindOf(err) == errs.Unauthorized {
		return err
	}
	return nil
}

// writeRevoked is the answer to a request whose token was revoked or expired while it ran.
func writeRevoked(w http.ResponseWriter, why error) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="plandash", error="invalid_token"`)
	writeJSONStatus(w, http.StatusUnauthorized, "application/problem+json", Problem{
		Title: "Unauthorized", Status: http.StatusUnauthorized, Code: "unauthorized", Detail: why.Error(),
	})
}

// revocable passes a handler's answer through, unless the request's token was revoked before
// the handler began answering: then the client gets 401 saying so, and what the handler made
// of its cancelled context is dropped.
type revocable struct {
	http.ResponseWriter
	ctx      context.Context
	wrote    bool
	muted    bool
	hijacked bool
}

func (rw *revocable) WriteHeader(code int) {
	if rw.wrote {
		return
	}
	rw.wrote = true
	if why := revokedCause(rw.ctx); why != nil {
		rw.muted = true
		writeRevoked(rw.ResponseWriter, why)
		return
	}
	rw.ResponseWriter.WriteHeader(code)
}

func (rw *revocable) Write(b []byte) (int, error) {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	if rw.muted {
		return len(b), nil
	}
	return rw.ResponseWriter.Write(b)
}

// Flush passes flushes on (MCP's event streams need them).
func (rw *revocable) Flush() {
	if !rw.muted {
		_ = http.NewResponseController(rw.ResponseWriter).Flush()
	}
}

// Hijack hands the connection to the socket, noting that this writer answers nothing more.
func (rw *revocable) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	rw.hijacked = true
	return http.NewResponseController(rw.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the real writer (deadlines).
func (rw *revocable) Unwrap() http.ResponseWriter { return rw.ResponseWriter }
