package web

// The middleware every request passes, in the order routes.go applies it: a panic becomes a
// 500 page, the Host header is checked (DNS rebinding), security headers are set, state-changing
// requests from other sites are refused (CSRF), pages are compressed, a server that is stopping
// drains, and a request without credentials gets the locked page (an embed view, the boot page
// that trades its token for a cookie).

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/web/templates"
)

// securityHeaders sets the headers every response carries. Framing is allowed only by the
// configured ancestors; everything the page loads comes from this server.
func securityHeaders(frameAncestors []string) func(http.Handler) http.Handler {
	anc := "'self'"
	if len(frameAncestors) > 0 {
		anc = strings.Join(frameAncestors, " ")
	}
	csp := "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
		"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors " + anc
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Content-Security-Policy", csp)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "no-referrer")
			if anc == "'self'" {
				h.Set("X-Frame-Options", "SAMEORIGIN")
			}
			if r.TLS != nil && !isLocalhost(r.Host) {
				h.Set("Strict-Transport-Security", hsts)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// hsts keeps browsers on HTTPS once they reached plandash over it, so a later plain http://
// link cannot be used to strip TLS. Only this host: plandash knows nothing of its subdomains.
const hsts = "max-age=31536000"

// isLocalhost reports whether host (with or without a port) is localhost. HSTS binds a name
// for every port, so it is not sent there: it would force HTTPS on every other development
// server on the machine. (Browsers ignore it for IP addresses anyway.)
func isLocalhost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// compressPages gzips HTML and JSON answers for clients that accept it: a page is mostly
// repeated markup and shrinks about ten-fold. It leaves alone the socket upgrade (the connection
// is handed over), event streams (each event must leave at once) and answers that set their own
// encoding; a handler that flushes (a long-poll's heartbeat) flushes through the compressor, so
// nothing streamed waits in a buffer.
func compressPages(next http.Handler) http.Handler {
	// A gzip.Writer is about 800 KB of tables to allocate and set up, whatever it compresses:
	// for the small answers of ingest posts it was most of the server's CPU (and its garbage).
	// Reset makes a used one the same as a new one, so answers are byte for byte the same.
	pool := &sync.Pool{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" || strings.HasPrefix(r.URL.Path, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		// Said to every client: a cache must not hand one client's encoding to another.
		w.Header().Add("Vary", "Accept-Encoding")
		if !acceptsGzip(r) {
			next.ServeHTTP(w, r)
			return
		}
		gw := &gzipWriter{ResponseWriter: w, pool: pool}
		defer gw.close()
		next.ServeHTTP(gw, r)
	})
}

// minCompress is the smallest answer worth compressing: below it gzip's own header and the
// set-up on both ends (the server resets ~600 KB of compressor tables, the client allocates a
// decompressor) cost more than the bytes saved (an ingest post's answer is about 40 bytes). A
// long poll's answer is where that shows: an approval's waiter gets ~1.1 KB, and compressing
// it made decision → waiter 0.6 ms (a fifth) slower at the median, measured from outside
// against the same server without it, to save 600 bytes on a loopback or LAN connection.
const minCompress = 4096

// compressible says which answers are worth compressing: text the server made, unless it says
// it is small.
func compressible(h http.Header) bool {
	if h.Get("Content-Encoding") != "" {
		return false
	}
	if n, err := strconv.Atoi(h.Get("Content-Length")); err == nil && n < minCompress {
		return false
	}
	ct, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	switch ct {
	case "text/html", "application/json", "application/problem+json", "text/plain", "text/css":
		return true
	}
	return false
}

// gzipWriter decides at the status line whether to compress; after that it only passes bytes.
type gzipWriter struct {
	http.ResponseWriter
	zw      *gzip.Writer // nil: the answer goes out as it is
	decided bool
	pool    *sync.Pool // of *gzip.Writer, closed and ready to Reset
}

func (g *gzipWriter) WriteHeader(code int) {
	// An informational status (103) is not the answer: the decision waits for the real one.
	if !g.decided && code >= 200 {
		g.decided = true
		h := g.Header()
		if code != http.StatusNoContent && code != http.StatusNotModified && compressible(h) {
			h.Set("Content-Encoding", "gzip")
			h.Del("Content-Length")
			if zw, ok := g.pool.Get().(*gzip.Writer); ok {
				zw.Reset(g.ResponseWriter)
				g.zw = zw
			} else {
				g.zw = gzip.NewWriter(g.ResponseWriter)
			}
		}
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *gzipWriter) Write(p []byte) (int, error) {
	if !g.decided {
		if g.Header().Get("Content-Type") == "" {
			g.Header().Set("Content-Type", http.DetectContentType(p))
		}
		g.WriteHeader(http.StatusOK)
	}
	if g.zw != nil {
		return g.zw.Write(p)
	}
	return g.ResponseWriter.Write(p)
}

// Flush sends what the compressor holds, then what the connection holds.
func (g *gzipWriter) Flush() {
	if g.zw != nil {
		_ = g.zw.Flush()
	}
	http.NewResponseController(g.ResponseWriter).Flush()
}

// Hijack hands the connection over untouched (nothing was compressed: an upgrade is passed by).
func (g *gzipWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if g.decided {
		return nil, nil, errors.New("hijack after the answer began")
	}
	return http.NewResponseController(g.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the connection's deadlines.
func (g *gzipWriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }

func (g *gzipWriter) close() {
	if g.zw != nil {
		_ = g.zw.Close()
		g.pool.Put(g.zw)
		g.zw = nil
	}
}

// errRestarting is what a request still waiting when the server shuts down gets: a retryable
// answer, so a long poll (a waiting hook, `plandash approval request`, a proxy) asks again once
// the server (or another instance) is back, instead of mistaking an empty 200 for an answer.
var errRestarting = errs.New(errs.Unavailable, "plandash is shutting down; ask again in a moment")

// stopping reports whether graceful shutdown has begun: stop is closed when it does.
func stopping(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// drain wraps a long-poll route: if the server began shutting down (stop closed) while the
// handler waited and the handler wrote nothing, the client gets 503 with Retry-After.
func drain(stop <-chan struct{}, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := &writeTracker{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			if !rec.wrote && stopping(stop) {
				writeRestarting(w, r, log)
			}
		})
	}
}

func writeRestarting(w http.ResponseWriter, r *http.Request, log *slog.Logger) {
	w.Header().Set("Retry-After", "1")
	writeProblem(w, r, log, errRestarting)
}

// writeTracker notes whether a handler wrote anything.
type writeTracker struct {
	http.ResponseWriter
	wrote bool
}

func (t *writeTracker) WriteHeader(code int) { t.wrote = true; t.ResponseWriter.WriteHeader(code) }
func (t *writeTracker) Write(b []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer (flushes, deadlines).
func (t *writeTracker) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// loginParam marks the locked page's form: it posts the token to the page's own address with
// this query parameter, so the person lands on the page the link pointed at.
const loginParam = "plandash-login"

// maxLoginForm bounds the form's body: a token is 48 characters.
const maxLoginForm = 4 << 10

// writeLocked answers with the locked page. It is written without a request's context (the
// auth middleware has none to give), so the page's styles load from their plain addresses.
func writeLocked(w http.ResponseWriter, code int, why string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = templates.LockedPage(why).Render(context.Background(), w)
}

// lockedPage answers a page request without credentials (401) with the locked page.
func lockedPage(w http.ResponseWriter, why string) {
	writeLocked(w, http.StatusUnauthorized, why)
}

// loginForm takes the locked page's form: POST <page>?plandash-login with token=…. The right
// token sets the cookie and sends the browser to the page with GET; a wrong one counts as a
// failed attempt, exactly like a wrong ?token=, and the same throttle refuses the wrong tokens
// of a client that keeps failing (never the right one). The cross-origin check runs before
// this, so another site cannot sign a browser in with a token of its choosing.
func (a *Auth) loginForm(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !r.URL.Query().Has(loginParam) || !wantsLogin(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		client := a.clientIP(r)
		r.Body = http.MaxBytesReader(w, r.Body, maxLoginForm)
		if err := r.ParseForm(); err != nil {
			writeLocked(w, http.StatusBadRequest, "The form could not be read; paste the token and send it again.")
			return
		}
		t := strings.TrimSpace(r.PostForm.Get("token"))
		if !a.tokenOK(t) {
			// Only wrong tokens are throttled: the right one always signs the browser in.
			if wait := a.fails.blocked(client, a.now()); wait > 0 && t != "" {
				w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
				writeLocked(w, http.StatusTooManyRequests, "Too many attempts with a wrong token from this address; wait a minute and try again.")
				return
			}
			if t != "" {
				n := a.fails.add(client, a.now())
				a.log.Warn("authentication failed: wrong token in the form", "client", client, "path", r.URL.Path, "failures", n)
			}
			writeLocked(w, http.StatusUnauthorized, "That is not this server's token. Check that you copied all of it, from the server this page belongs to.")
			return
		}
		a.SetCookie(w, r)
		http.Redirect(w, r, loginTarget(r.URL), http.StatusSeeOther)
	})
}

// wantsLogin says which addresses the form may post to: pages, not the API or the socket.
func wantsLogin(p string) bool {
	return !strings.HasPrefix(p, "/api/") && !strings.HasPrefix(p, "/static/") && p != "/ws" && p != "/mcp"
}

// loginTarget is where a browser goes once signed in: the same page, without the form's marker.
// It is always a path on this server: "//host" would leave it.
func loginTarget(u *url.URL) string {
	p := u.EscapedPath()
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") {
		p = "/"
	}
	q := u.Query()
	q.Del(loginParam)
	if enc := q.Encode(); enc != "" {
		return p + "?" + enc
	}
	return p
}

// checkHost refuses requests whose Host header names a host plandash was not told it answers
// to: a web page on evil.example whose name was re-pointed at 127.0.0.1 (DNS rebinding) reaches
// the loopback server with Host: evil.example, and is refused before anything else. IP literals
// and loopback names always pass; other names only when configured (--host): hosts.
func checkHost(hosts []string, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !hostAllowed(r.Host, hosts) {
				writeProblemStatus(w, r, log, errs.Errorf(errs.Forbidden,
					"this plandash does not answer to the host %q: it answers to loopback names, IP addresses and the names given with --host", r.Host),
					http.StatusMisdirectedRequest)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func hostAllowed(hostport string, extra []string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "" {
		return false
	}
	if net.ParseIP(host) != nil {
		return true
	}
	host = strings.ToLower(host)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	for _, e := range extra {
		if strings.EqualFold(strings.TrimSuffix(e, "."), host) {
			return true
		}
	}
	return false
}

// recoverPanics turns a handler's panic into a logged 500 (a page or a problem), instead of a
// dropped connection or a blank answer. An aborted handler (http.ErrAbortHandler) is let through.
func recoverPanics(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				if r.Header.Get("Upgrade") == "" {
					writeProblem(w, r, log, fmt.Errorf("panic: %v", v))
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// notFound answers a path no route serves.
func notFound(log *slog.Logger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, log, errNoRoute(r.URL.Path))
	}
}

// methodNotAllowed answers a method a route does not take.
func methodNotAllowed(log *slog.Logger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeProblemStatus(w, r, log, errs.Errorf(errs.Invalid, "%s is not something %s does", r.Method, r.URL.Path), http.StatusMethodNotAllowed)
	}
}

// csrf is the cross-site forgery check every request passes: Sec-Fetch-Site and Origin are
// checked; non-browser clients (curl, the proxy) send neither. A state-changing request another
// site's page sent is refused.
func csrf(log *slog.Logger) func(http.Handler) http.Handler {
	p := http.NewCrossOriginProtection()
	p.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, log, errs.New(errs.Forbidden, "a request from another site was refused: plandash takes changes only from its own pages"))
	}))
	return p.Handler
}

// requireEmbed answers an embed view without a cookie with the boot page, which trades the token
// in the URL fragment for one.
func (a *Auth) requireEmbed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.Check(r) {
			w.Header().Set("Cache-Control", "no-store")
			writeHTML(w, r, a.log, templates.EmbedBoot())
			return
		}
		next.ServeHTTP(w, r)
	})
}
