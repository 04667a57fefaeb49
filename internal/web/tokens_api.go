package web

import (
	"net/http"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/tokens"
)

// The token management API: the same as `plandash tokens`, for an admin who does not sit on the
// server machine. It needs admin (routeNeed names none of it), so an agent's token can neither
// mint itself a wider one nor revoke another's.

// tokenRequest is POST /api/v1/tokens' body.
type tokenRequest struct {
	Name    string       `json:"name"`
	Scope   tokens.Scope `json:"scope,omitempty"`   // default ingest
	Expires string       `json:"expires,omitempty"` // a Go duration, e.g. "720h"; "" never
}

// tokenCreated is the answer: the token, and its secret, this once.
type tokenCreated struct {
	tokens.Token
	Secret string `json:"secret"`
}

// maxTokenBody bounds a token request: a name, a scope and a duration.
const maxTokenBody = 4 << 10

// tokenService is the per-agent tokens the server takes, or why there are none.
func (a *Auth) tokenService() (*tokens.Service, error) {
	if a.tokens == nil {
		return nil, errs.New(errs.NotFound, "this server takes no per-agent tokens")
	}
	return a.tokens, nil
}

// apiListTokens serves GET /api/v1/tokens: every token, never a secret.
func (s *Server) apiListTokens(w http.ResponseWriter, r *http.Request) {
	svc, err := s.auth.tokenService()
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	list, err := svc.List(r.Context())
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if list == nil {
		list = []tokens.Token{}
	}
	writeJSON(w, http.StatusOK, list)
}

// apiCreateToken serves POST /api/v1/tokens: 201 with the token and its secret.
func (s *Server) apiCreateToken(w http.ResponseWriter, r *http.Request) {
	svc, err := s.auth.tokenService()
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	var in tokenRequest
	if err := decodeJSON(w, r, maxTokenBody, true, &in); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if in.Scope == "" {
		in.Scope = tokens.Ingest
	}
	scope, err := tokens.ParseScope(string(in.Scope))
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	var ttl time.Duration
	if in.Expires != "" {
		if ttl, err = time.ParseDuration(in.Expires); err != nil || ttl <= 0 {
			writeProblem(w, r, s.log, errs.Errorf(errs.Invalid, "expires %q: want a positive duration such as 720h", in.Expires))
			return
		}
	}
	tok, secret, err := svc.Create(r.Context(), in.Name, scope, ttl)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	s.log.Info("token created", "token", tok.Name, "scope", tok.Scope, "by", decider(r, s.cfg))
	w.Header().Set("Cache-Control", "no-store") // the secret must not linger in a cache
	writeJSON(w, http.StatusCreated, tokenCreated{Token: tok, Secret: secret})
}

// apiRevokeToken serves DELETE /api/v1/tokens/{name}: 204 once revoked.
func (s *Server) apiRevokeToken(w http.ResponseWriter, r *http.Request) {
	svc, err := s.auth.tokenService()
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	name := param(r, "name")
	if err := svc.Revoke(r.Context(), name); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	s.log.Info("token revoked", "token", name, "by", decider(r, s.cfg))
	w.WriteHeader(http.StatusNoContent)
}
