package web

import (
	"net"
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
