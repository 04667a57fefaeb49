package approval

import (
	"context"
	"time"
)

// Submitter is the per-agent token a request is submitted with, by identity: a revoked token's
// name may be given to a new token, and the new token must not own the old one's requests.
type Submitter struct {
	ID    string    // the token's identity (tokens.Token.ID)
	Label string    // "token:NAME", as SubmittedBy records it
	Since time.Time // when the token was made
}

type submitterKey struct{}

// WithSubmitter marks ctx as coming with the per-agent token s. Without it, the request comes
// with the server's own token, which may act on any request.
func WithSubmitter(ctx context.Context, s Submitter) context.Context {
	return context.WithValue(ctx, submitterKey{}, s)
}

// SubmitterOf is the token WithSubmitter put in ctx; false for the server's own token.
func SubmitterOf(ctx context.Context) (Submitter, bool) {
	s, ok := ctx.Value(submitterKey{}).(Submitter)
	return s, ok
}

// Owns reports whether s submitted r. A request stored before requests recorded the token's
// identity is matched by label, and only by a token made no later than the request (a newer
// token of the same name cannot have submitted it).
func (s Submitter) Owns(r Request) bool {
	if r.SubmitterID != "" {
		return s.ID != "" && r.SubmitterID == s.ID
	}
	return r.SubmittedBy != "" && r.SubmittedBy == s.Label && !s.Since.After(r.Created)
}
