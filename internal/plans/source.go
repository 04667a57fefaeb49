package plans

import (
	"context"
	"time"
)

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

// timeKey carries when the changes applied under a context happened.
type timeKey struct{}

// WithTime returns ctx marked with when the changes applied under it happened, for changes read
// from an agent's record of the past (a transcript discovered at start): a session they create
// or touch is seen at that time, not now, so a week-old session does not show as active. A
// time after now counts as now, and a session is never moved back from a later sighting.
func WithTime(ctx context.Context, at time.Time) context.Context {
	return context.WithValue(ctx, timeKey{}, at)
}

// TimeOf is the time WithTime put in ctx, or the zero time.
func TimeOf(ctx context.Context) time.Time {
	t, _ := ctx.Value(timeKey{}).(time.Time)
	return t
}
