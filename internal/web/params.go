package web

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/plandash/plandash/internal/errs"
)

// param is a route parameter as the client meant it. Ids may contain "/" (ACP leaves session ids
// to the agent), which links escape as %2F; the router matches the escaped path, so the
// parameter arrives escaped and is unescaped here, once, for every handler.
func param(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// checkHost refuses requests whose Host header names a host plandash was not told it answers
// to: a web page on evil.example whose name was re-pointed at 127.0.0.1 (DNS rebinding) reaches
// the loopback server with Host: evil.example, and is refused before anything else. IP literals
// and loopback names always pass; other names only when configured (--host).
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, s.cfg.Hosts) {
			writeProblemStatus(w, r, s.log, errs.Errorf(errs.Forbidden,
				"this plandash does not answer to the host %q: it answers to loopback names, IP addresses and the names given with --host", r.Host),
				http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
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
