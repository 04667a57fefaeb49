package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// cookieName carries the browser's proof of the token.
const cookieName = "plandash_auth"

// Auth checks the bearer token. The cookie holds a value derived from the token, not the token,
// so a browser never stores the credential the API takes.
type Auth struct {
	token  []byte
	cookie string
}

// NewAuth makes the checker for token.
func NewAuth(token string) *Auth {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("plandash browser cookie v1"))
	return &Auth{token: []byte(token), cookie: hex.EncodeToString(m.Sum(nil))}
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

// Check reports whether r carries the token: an Authorization bearer header, the cookie, or (for
// the socket) the token subprotocol.
func (a *Auth) Check(r *http.Request) bool {
	if h := r.Header.Get("Authorization"); h != "" {
		t, ok := strings.CutPrefix(h, "Bearer ")
		return ok && a.tokenOK(strings.TrimSpace(t))
	}
	if c, err := r.Cookie(cookieName); err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(a.cookie)) == 1 {
		return true
	}
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if t, ok := strings.CutPrefix(strings.TrimSpace(p), socketTokenProtocol); ok && a.tokenOK(t) {
				return true
			}
		}
	}
	return false
}

// SetCookie gives the browser its proof of the token, for pages opened in their own tab.
func (a *Auth) SetCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: a.cookie, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: 30 * 24 * 3600,
	})
}

// embedCookieAge is short: an embedding host hands a fresh token in the URL fragment whenever it
// opens the panel, so a leaked third-party cookie is worth little.
const embedCookieAge = 12 * 3600

// SetEmbedCookie gives an iframe its proof of the token. A third-party iframe only keeps
// SameSite=None cookies, which must be Secure; browsers accept Secure cookies from loopback
// over plain HTTP.
func (a *Auth) SetEmbedCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: a.cookie, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteNoneMode, Secure: true, MaxAge: embedCookieAge,
	})
}

// RequireAPI refuses requests without the token with a problem body.
func (a *Auth) RequireAPI(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.Check(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="plandash"`)
			writeJSONStatus(w, http.StatusUnauthorized, "application/problem+json", Problem{
				Title: "Unauthorized", Status: http.StatusUnauthorized,
				Detail: "missing or wrong token: send Authorization: Bearer <token> (the token is printed at start-up and stored in the data directory)",
			})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// RequirePage lets a browser in once with ?token=, sets the cookie and redirects to the same
// page without the token, so it does not linger in the address bar or the history.
func (a *Auth) RequirePage(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t := r.URL.Query().Get("token"); t != "" {
			if !a.tokenOK(t) {
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
		if !a.Check(r) {
			lockedPage(w, "Open the address plandash printed when it started (it carries the token once), or run `plandash url`.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func lockedPage(w http.ResponseWriter, why string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>plandash · locked</title><link rel="stylesheet" href="/static/app.css"></head><body><main><div class="empty" data-testid="locked">
<h2>This dashboard needs its token</h2><p>%s</p></div></main></body></html>`, htmlEscape(why))
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// LoadOrCreateToken returns the token stored in dir, creating a random one on first use.
func LoadOrCreateToken(dir string) (string, error) {
	path := filepath.Join(dir, "token")
	b, err := os.ReadFile(path)
	if err == nil {
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read token: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	t := hex.EncodeToString(raw)
	if err := os.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("store token: %w", err)
	}
	return t, nil
}
