package web

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/tokens"
)

// Why a request's credentials were refused, when no token's own reason applies.
var (
	errNoCredentials = errs.New(errs.Unauthorized, "no credentials")
	errWrongToken    = errs.New(errs.Unauthorized, "wrong token")
)

// principal is who a request's credentials name: the server's own token (which the browser's
// cookie stands for), or a per-agent token.
type principal struct {
	agent *tokens.Token // nil: the server's own token
	// viaCookie: the request came with the browser's cookie, made from the credential.
	viaCookie bool
}

func (p principal) admin() bool { return p.agent == nil }

// browser reports whether p may open the pages: the server's own token, or a cookie an
// admin-scoped per-agent token was traded for (an IDE panel signed in with one).
func (p principal) browser() bool {
	return p.admin() || p.viaCookie && p.agent.Scope == tokens.Admin
}

// attach marks ctx with who p is: the principal, and for a per-agent token its label as the
// source of the changes made under ctx and its identity as the submitter of approval
// requests.
func (p principal) attach(ctx context.Context) context.Context {
	ctx = withPrincipal(ctx, p)
	if p.agent != nil {
		ctx = plans.WithSource(ctx, p.agent.Label())
		ctx = approval.WithSubmitter(ctx, submitterOf(*p.agent))
	}
	return ctx
}

// scope is what the principal may do: everything for the server's own token.
func (p principal) scope() tokens.Scope {
	if p.agent == nil {
		return tokens.Admin
	}
	return p.agent.Scope
}

type principalKey struct{}

func withPrincipal(ctx context.Context, p principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// principalOf is who RequireAPI let r in as; the server's own token for requests that did not
// pass through it (pages, which only that token opens).
func principalOf(r *http.Request) principal {
	p, _ := r.Context().Value(principalKey{}).(principal)
	return p
}

// Credential names the credential r was let in with, for limits kept per credential (MCP
// sessions): "admin" for the server's own token and its cookie, else the per-agent token's
// hash, so a new token reusing a revoked one's name is another credential. It is never a secret.
func Credential(r *http.Request) string {
	if p := principalOf(r); p.agent != nil {
		return "token:" + p.agent.Hash
	}
	return "admin"
}

// agentLabel is "token:NAME" when r came with a per-agent token, else "".
func agentLabel(r *http.Request) string {
	if p := principalOf(r); p.agent != nil {
		return p.agent.Label()
	}
	return ""
}

// apiSource is what a change through the API is recorded as coming from: "token:NAME" for a
// per-agent token, else "api".
func apiSource(r *http.Request) string {
	if label := agentLabel(r); label != "" {
		return label
	}
	return "api"
}

// WithTokens lets per-agent tokens in, as checked by svc; without it only the server's own
// token is. submitter reads an approval request, whose submitting token alone among ingest
// tokens may wait for the decision.
func (a *Auth) WithTokens(svc *tokens.Service, submitter func(ctx context.Context, id string) (approval.Request, error)) {
	a.tokens, a.submitter = svc, submitter
}

// bearer is who the bearer token t names.
func (a *Auth) bearer(ctx context.Context, t string) (principal, error) {
	if a.tokenOK(t) {
		return principal{}, nil
	}
	if a.tokens == nil || !tokens.LooksLikeSecret(t) {
		return principal{}, errWrongToken
	}
	tok, err := a.tokens.Verify(ctx, t)
	if err != nil {
		return principal{}, err
	}
	return principal{agent: &tok}, nil
}

// need is what a route asks of a per-agent token.
type need struct {
	scope tokens.Scope
	// own lets an ingest token through when it submitted the approval request {id}: an agent
	// waits for the decision on its own plan, not on others'.
	own bool
}

// routeNeed is the scope each API route needs, by method and chi pattern. A route not named
// here needs admin: a new route is closed to agents' tokens until someone decides otherwise.
func routeNeed(method, pattern string) need {
	switch method + " " + pattern {
	// What an agent does: report its work, relay its permission requests, ask for approval.
	case "POST /api/v1/ingest", "POST /api/v1/hooks/{agent}",
		"POST /api/v1/approvals", "POST /api/v1/approvals/validate",
		"POST /api/v1/proxy/permissions", "POST /api/v1/proxy/permissions/resolved", "GET /api/v1/proxy/answers",
		"GET /api/v1/shared-plans", "POST /api/v1/shared-plans", "POST /api/v1/shared-plans/-/tools/{tool}",
		"GET /api/v1/shared-plans/{name}", "PUT /api/v1/shared-plans/{name}", "POST /api/v1/shared-plans/{name}",
		"DELETE /api/v1/shared-plans/{name}", "GET /api/v1/shared-plans/{name}/status",
		"PUT /api/v1/shared-plans/{name}/status", "POST /api/v1/shared-plans/{name}/status",
		"GET /api/v1/shared-plans/{name}/history":
		return need{scope: tokens.Ingest}
	case "GET /api/v1/approvals/{id}":
		return need{scope: tokens.Decide, own: true}
	// What a person (or a bot deciding for one) does: read the dashboard, decide.
	case "GET /api/v1/plans", "GET /api/v1/sessions", "GET /api/v1/sessions/{id}", "GET /api/v1/sessions/{id}/tool-calls",
		"GET /api/v1/sessions/{id}/plans/{plan}/history",
		"POST /api/v1/sessions/{id}/end", "GET /ws",
		"GET /api/v1/approvals", "GET /api/v1/approvals/audit", "GET /api/v1/approvals/count",
		"GET /api/v1/approvals/rules", "POST /api/v1/approvals/rules", "DELETE /api/v1/approvals/rules/{rule}",
		"POST /api/v1/approvals/{id}/decision",
		"GET /api/v1/proxy/permissions", "POST /api/v1/proxy/permissions/answer",
		"GET /api/v1/waits", "POST /api/v1/waits/{id}/answer":
		return need{scope: tokens.Decide}
	}
	// MCP over HTTP is an agent's: its tools write shared plans and ask for approval.
	if pattern == "/mcp" {
		return need{scope: tokens.Ingest}
	}
	return need{scope: tokens.Admin}
}

// scopeProblem is the 403 answer: which scope the route needs, and which the token has.
type scopeProblem struct {
	Problem
	RequiredScope tokens.Scope `json:"requiredScope"`
	TokenScope    tokens.Scope `json:"tokenScope"`
}

// permit answers 403 and reports false when who's scope does not cover r's route.
func (a *Auth) permit(w http.ResponseWriter, r *http.Request, who principal) bool {
	if who.admin() {
		return true
	}
	pattern := ""
	if rc := chi.RouteContext(r.Context()); rc != nil {
		pattern = rc.RoutePattern()
	}
	n := routeNeed(r.Method, pattern)
	if who.scope().Allows(n.scope) {
		return true
	}
	if n.own && who.scope().Allows(tokens.Ingest) {
		req, err := a.submitter(r.Context(), chi.URLParam(r, "id"))
		if err != nil && errs.KindOf(err) != errs.NotFound {
			writeProblem(w, r, a.log, errs.Wrap(errs.Unavailable, err, "the server could not check the token just now; try again"))
			return false
		}
		// By identity, not by name: a new token given a revoked token's name does not own the
		// old one's requests.
		if err == nil && submitterOf(*who.agent).Owns(req) {
			return true
		}
	}
	detail := "this needs a token of scope " + string(n.scope) + " (or the server's own token); the token " +
		who.agent.Name + " has scope " + string(who.agent.Scope)
	if n.own {
		detail += ", and did not submit this request"
	}
	writeJSONStatus(w, http.StatusForbidden, "application/problem+json", scopeProblem{
		Problem:       Problem{Title: "Forbidden", Status: http.StatusForbidden, Code: "insufficient_scope", Detail: detail},
		RequiredScope: n.scope, TokenScope: who.agent.Scope,
	})
	return false
}
