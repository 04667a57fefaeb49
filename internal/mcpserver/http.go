package mcpserver

import (
	"cmp"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for HTTPOptions. A session costs tens of KiB for as long as it lives, and the SDK
// keeps one until it is deleted or times out: without bounds, 23,000 initialize calls held
// 600 MiB for good.
const (
	DefaultIdleTimeout        = 30 * time.Minute
	DefaultSessionsPerCredent = 32
)

// sessionHeader is the streamable HTTP transport's session id header.
const sessionHeader = "Mcp-Session-Id"

// HTTPOptions bounds the sessions of MCP over streamable HTTP.
type HTTPOptions struct {
	// IdleTimeout closes a session that has had no request for this long; a client that
	// comes back gets 404 and initializes again, as the protocol says. 0 is
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxPerCredential caps the live sessions opened with one credential. A new session over
	// the cap closes that credential's longest-idle session; when all of them are in a request
	// it is refused with 429. 0 is DefaultSessionsPerCredent.
	MaxPerCredential int
	// Credential names the credential a request came with (a token's identity, never its
	// secret); nil puts every request under one.
	Credential func(*http.Request) string
	// OnEvict is told each time a session is closed to make room for a new one.
	OnEvict func()
}

// HTTPHandler serves srv over streamable HTTP with idle sessions closed and live sessions
// capped per credential. Sessions are bound to the credential that opened them: another
// credential naming a session id gets 404, as for a session that does not exist.
type HTTPHandler struct {
	srv  *mcp.Server
	h    *mcp.StreamableHTTPHandler
	opts HTTPOptions

	mu     sync.Mutex
	owners map[string]*owned // session id → who opened it, when it was last used
}

type owned struct {
	cred     string
	last     time.Time
	inflight int
}

// NewHTTPHandler returns the handler for /mcp.
func NewHTTPHandler(srv *mcp.Server, o HTTPOptions) *HTTPHandler {
	o.IdleTimeout = cmp.Or(o.IdleTimeout, DefaultIdleTimeout)
	o.MaxPerCredential = cmp.Or(o.MaxPerCredential, DefaultSessionsPerCredent)
	return &HTTPHandler{
		srv: srv,
		h: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{SessionTimeout: o.IdleTimeout}),
		opts:   o,
		owners: map[string]*owned{},
	}
}

// Sessions is the number of live sessions, for the metric.
func (h *HTTPHandler) Sessions() int {
	n := 0
	for range h.srv.Sessions() {
		n++
	}
	return n
}

func (h *HTTPHandler) credential(r *http.Request) string {
	if h.opts.Credential == nil {
		return ""
	}
	return h.opts.Credential(r)
}

// ServeHTTP implements http.Handler.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cred := h.credential(r)
	if id := r.Header.Get(sessionHeader); id != "" {
		h.serveSession(w, r, id, cred)
		return
	}
	if r.Method != http.MethodPost {
		h.h.ServeHTTP(w, r) // the SDK answers what it answers to a request without a session
		return
	}
	if h.full(cred) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("too many MCP sessions: this token has %d open (the most allowed), all in a request now; "+
			"end one (DELETE /mcp with its %s header) or retry later", h.opts.MaxPerCredential, sessionHeader),
			http.StatusTooManyRequests)
		return
	}
	h.h.ServeHTTP(w, r)
	// The session exists once the SDK answered with its id; only then is another one closed,
	// so a request that opens none (a bad initialize, a probe) never costs a session.
	if id := w.Header().Get(sessionHeader); id != "" {
		h.opened(id, cred)
	}
}

// serveSession serves a request on an existing session, keeping it the opener's.
func (h *HTTPHandler) serveSession(w http.ResponseWriter, r *http.Request, id, cred string) {
	h.mu.Lock()
	o := h.owners[id]
	if o != nil && o.cred != cred {
		h.mu.Unlock()
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	// A GET is the standalone stream a client may keep open for the whole session: like the
	// SDK's idle timer, only requests (POST, DELETE) make a session busy.
	busy := o != nil && r.Method != http.MethodGet
	if o != nil {
		o.last = time.Now()
	}
	if busy {
		o.inflight++
	}
	h.mu.Unlock()
	h.h.ServeHTTP(w, r)
	if busy {
		h.mu.Lock()
		o.inflight--
		o.last = time.Now()
		h.mu.Unlock()
	}
}

// live returns the sessions that exist now, by id, forgetting the ones that ended (idle
// timeout, DELETE, a failed initialize). h.mu must be held.
func (h *HTTPHandler) live() map[string]*mcp.ServerSession {
	live := map[string]*mcp.ServerSession{}
	for ss := range h.srv.Sessions() {
		live[ss.ID()] = ss
	}
	for id := range h.owners {
		if live[id] == nil {
			delete(h.owners, id)
		}
	}
	return live
}

// idlest returns cred's sessions but except, and the longest-idle of them not in a request
// ("" when all are). h.mu must be held.
func (h *HTTPHandler) idlest(cred, except string) (n int, idlest string) {
	for id, o := range h.owners {
		if o.cred != cred || id == except {
			continue
		}
		n++
		if o.inflight == 0 && (idlest == "" || o.last.Before(h.owners[idlest].last)) {
			idlest = id
		}
	}
	return n, idlest
}

// full reports whether cred is at the cap with every session in a request, so a new one
// could only be had by ending work in progress.
func (h *HTTPHandler) full(cred string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.live()
	n, idlest := h.idlest(cred, "")
	return n >= h.opts.MaxPerCredential && idlest == ""
}

// opened records session id as cred's and closes cred's longest-idle sessions while it has
// more than the cap.
func (h *HTTPHandler) opened(id, cred string) {
	h.mu.Lock()
	live := h.live()
	if live[id] == nil {
		h.mu.Unlock()
		return // it ended already (a failed initialize)
	}
	h.owners[id] = &owned{cred: cred, last: time.Now()}
	var evict []*mcp.ServerSession
	for {
		n, idlest := h.idlest(cred, id)
		if n < h.opts.MaxPerCredential || idlest == "" {
			break
		}
		delete(h.owners, idlest)
		evict = append(evict, live[idlest])
	}
	h.mu.Unlock()
	for _, ss := range evict {
		_ = ss.Close()
		if h.opts.OnEvict != nil {
			h.opts.OnEvict()
		}
	}
}
