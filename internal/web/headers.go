package web

import (
	"net/http"
	"strings"
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
			next.ServeHTTP(w, r)
		})
	}
}
