package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/plandash/plandash/web/templates"
)

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

// loginForm takes the locked page's form: POST <page>?plandash-login with token=…. The right
// token sets the cookie and sends the browser to the page with GET; a wrong one counts as a
// failed attempt, exactly like a wrong ?token=, and the same throttle refuses the wrong tokens
// of a client that keeps failing (never the right one). The cross-origin check runs before
// this, so another site cannot sign a browser in with a token of its choosing.
func (s *Server) loginForm(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !r.URL.Query().Has(loginParam) || !wantsLogin(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		a := s.auth
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
