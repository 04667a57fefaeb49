package plans

import "context"

// sourceKey carries who a change comes from through the context.
type sourceKey struct{}

// WithSource returns ctx marked with the source of the changes applied under it, such as
// "token:ci-runner" for an agent's own token: Apply records it on the sessions it touches, so
// the dashboard shows which credential reported them. The HTTP side sets it; the domain never
// parses it.
func WithSource(ctx context.Context, source string) context.Context {
	return context.WithValue(ctx, sourceKey{}, source)
}

// SourceOf is the source WithSource put in ctx, or "".
func SourceOf(ctx context.Context) string {
	s, _ := ctx.Value(sourceKey{}).(string)
	return s
}
