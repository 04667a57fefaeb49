package web

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/tokens"
)

// cookieName carries the browser's proof of its credential (see auth_cookie.go).
const cookieName = "plandash_auth"

// Auth checks the bearer token. The cookie holds a value derived from the credential, not the
// credential, so a browser never stores what the API takes.
type Auth struct {
	token  []byte
	tokens *tokens.Service // per-agent tokens; nil admits the server's own token only
	// submitter is the approval request a per-agent token may wait on when it submitted it
	// (see WithTokens).
	submitter func(ctx context.Context, id string) (approval.Request, error)
	log       *slog.Logger
	now       func() time.Time
	fails     failures
	// ipHeader names the client's address when a trusted reverse proxy sets it ("" trusts none).
	ipHeader string
}

// TrustClientIPHeader takes a client's address from header, which a trusted reverse proxy sets
// (X-Real-IP, X-Forwarded-For), for throttling and logs.
func (a *Auth) TrustClientIPHeader(header string) { a.ipHeader = header }

// NewAuth makes the checker for token. Failed attempts are logged (never the token) and a client
// that keeps presenting wrong credentials is refused for a while.
func NewAuth(token string, log *slog.Logger, now func() time.Time) *Auth {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &Auth{token: []byte(token), log: log, now: now, fails: failures{byClient: map[string]*window{}}}
}

// tokenOK reports whether t is the token, in constant time.
func (a *Auth) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), a.token) == 1
}

// Socket subprotocols: a page that cannot keep a cookie (a third-party iframe with cookies
// blocked) offers its token as a second subprotocol, the only header a browser lets it set.
const (
	socketProtocol      = "plandash.v1"
	socketTokenProtocol = "plandash.token."
)

// Check reports whether r carries the server's own token: an Authorization bearer header, the
// cookie, or (for the socket) the token subprotocol. A per-agent token does not pass: this
// guards what only the browser's own credential opens (the embed views).
func (a *Auth) Check(r *http.Request) bool {
	p, err := a.verdict(r)
	return err == nil && p.browser()
}

// verdict is who r's credentials name, or why they name no one: errNoCredentials when r
// presented none, an Unauthorized error for a wrong, revoked or expired token, any other
// error when the tokens could not be looked up.
func (a *Auth) verdict(r *http.Request) (principal, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		t, ok := strings.CutPrefix(h, "Bearer ")
		if !ok {
			return principal{}, errWrongToken
		}
		return a.bearer(r.Context(), strings.TrimSpace(t))
	}
	var verdict error = errNoCredentials
	if c, err := r.Cookie(cookieName); err == nil {
		who, err := a.cookieVerdict(r.Context(), c.Value)
		if err == nil || errs.KindOf(err) != errs.Unauthorized {
			return who, err
		}
		verdict = err // a cookie of another server, of an older format, or of a revoked token
	}
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if t, found := strings.CutPrefix(strings.TrimSpace(p), socketTokenProtocol); found {
				who, err := a.bearer(r.Context(), t)
				if err == nil || errs.KindOf(err) != errs.Unauthorized {
					return who, err
				}
				verdict = err
			}
		}
	}
	return principal{}, verdict
}

// admit checks r's credentials, logging a failure and refusing a client that failed too often.
// It answers the refusal itself (refuse, with why) and reports false; true means r may go on
// as who. Only failures are throttled: a request with a valid credential is let in even from
// an address that is refused for wrong ones, or anyone able to make a browser send wrong
// tokens to plandash (an <img> on any page) could lock the agents and their gate out.
func (a *Auth) admit(w http.ResponseWriter, r *http.Request, refuse func(why error)) (who principal, ok bool) {
	who, err := a.verdict(r)
	switch {
	case err == nil:
		return who, true
	case errs.KindOf(err) != errs.Unauthorized:
		// The token store failed: not the client's fault, and not a reason to let it in.
		a.log.Error("authentication: looking up a token failed", "path", r.URL.Path, "err", err)
		writeProblem(w, r, a.log, errs.Wrap(errs.Unavailable, err, "the server could not check the token just now; try again"))
		return principal{}, false
	case err != errNoCredentials:
		client := a.clientIP(r)
		if wait := a.fails.blocked(client, a.now()); wait > 0 {
			writeThrottled(w, wait)
			return principal{}, false
		}
		n := a.fails.add(client, a.now())
		a.log.Warn("authentication failed", "why", err.Error(), "client", client, "method", r.Method, "path", r.URL.Path, "failures", n)
	}
	refuse(err)
	return principal{}, false
}

// writeThrottled is the answer to a wrong credential from an address that sent too many.
func writeThrottled(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
	writeJSONStatus(w, http.StatusTooManyRequests, "application/problem+json", Problem{
		Title: "Too Many Requests", Status: http.StatusTooManyRequests, Code: "throttled",
		Detail: "too many attempts with a wrong token from this address; wait and try again with the right one",
	})
}

// RequireAPI refuses requests without a valid token with a problem body (401), and requests
// whose per-agent token's scope does not cover the route with another (403). A request let in
// carries who it is (see principalOf) and, for a per-agent token, its label as the source of
// the changes it makes.
func (a *Auth) RequireAPI(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(why error) {
			detail := "missing or wrong token: send Authorization: Bearer <token> (the token is printed at start-up and stored in the data directory, or made with `plandash tokens create`)"
			if why != errNoCredentials && why != errWrongToken && why != errStaleCookie {
				detail = why.Error()
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="plandash"`)
			writeJSONStatus(w, http.StatusUnauthorized, "application/problem+json", Problem{
				Title: "Unauthorized", Status: http.StatusUnauthorized, Code: "unauthorized", Detail: detail,
			})
		}
		who, ok := a.admit(w, r, refuse)
		if !ok || !a.permit(w, r, who) {
			return
		}
		r = r.WithContext(who.attach(r.Context()))
		if who.agent == nil {
			next.ServeHTTP(w, r)
			return
		}
		a.watch(w, r, *who.agent, next)
	})
}

// RequirePage lets a browser in once with ?token=, sets the cookie and redirects to the same
// page without the token, so it does not linger in the address bar or the history.
func (a *Auth) RequirePage(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t := r.URL.Query().Get("token"); t != "" {
			client := a.clientIP(r)
			if !a.tokenOK(t) {
				// Only the wrong token is throttled: the right one always opens the page.
				if wait := a.fails.blocked(client, a.now()); wait > 0 {
					w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
					writeLocked(w, http.StatusTooManyRequests, "Too many attempts with a wrong token from this address; wait a minute.")
					return
				}
				n := a.fails.add(client, a.now())
				a.log.Warn("authentication failed: wrong token in the address", "client", client, "path", r.URL.Path, "failures", n)
				lockedPage(w, "The token in the address is not this server's token.")
				return
			}
			a.SetCookie(w, r)
			u := *r.URL
			q := u.Query()
			q.Del("token")
			u.RawQuery = q.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		locked := func(error) {
			lockedPage(w, "Open the address plandash printed when it started (it carries the token once), or run `plandash url`.")
		}
		who, ok := a.admit(w, r, locked)
		switch {
		case !ok:
		case !who.browser():
			// Pages are the browser's: its cookie, or the server's own token.
			lockedPage(w, "A per-agent token opens the API only; open the pages with the address plandash printed, or `plandash url`.")
		default:
			next.ServeHTTP(w, r.WithContext(who.attach(r.Context())))
		}
	})
}

// Throttling wrong credentials: a client may fail maxFailures times in failWindow; after that it
// is refused until the window ends. Guessing a 192-bit token is hopeless anyway; this keeps a
// misconfigured script or a scanner from filling the log and burning CPU.
const (
	maxFailures = 20
	failWindow  = time.Minute
	maxClients  = 10000 // bounds memory: past this, windows that ended are dropped
)

type window struct {
	start time.Time
	n     int
}

type failures struct {
	mu       sync.Mutex
	byClient map[string]*window
}

// add counts a failure of client and returns how many it has in its window.
func (f *failures) add(client string, now time.Time) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.byClient[client]
	if w == nil || now.Sub(w.start) >= failWindow {
		if len(f.byClient) >= maxClients {
			for c, old := range f.byClient {
				if now.Sub(old.start) >= failWindow {
					delete(f.byClient, c)
				}
			}
		}
		w = &window{start: now}
		f.byClient[client] = w
	}
	w.n++
	return w.n
}

// blocked is how long client is still refused; 0 when it is not.
func (f *failures) blocked(client string, now time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.byClient[client]
	if w == nil || w.n < maxFailures {
		return 0
	}
	return max(w.start.Add(failWindow).Sub(now), 0)
}

// clientIP is the address a request came from: the peer's, or behind a trusted reverse proxy the
// one it names in the header --client-ip-header gives (else every client would share the
// proxy's address, and one client's wrong tokens would lock everybody out).
func (a *Auth) clientIP(r *http.Request) string {
	if a.ipHeader != "" {
		if v := strings.TrimSpace(r.Header.Get(a.ipHeader)); v != "" {
			// X-Forwarded-For lists the hops, and a client can write the first ones itself: the
			// last is the one the trusted proxy added.
			if i := strings.LastIndexByte(v, ','); i >= 0 {
				v = v[i+1:]
			}
			if ip := net.ParseIP(strings.TrimSpace(v)); ip != nil {
				return ip.String()
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
