package templates

import "context"

// assetBaseKey is the context key of the static files' base path.
type assetBaseKey struct{}

// WithAssetBase returns ctx with the path pages load their static files from, e.g.
// "/static/3fa94c1b02de/": a path named after the files' content, so browsers may keep them for a
// year and a new release is fetched at once. The HTTP side sets it on every request.
func WithAssetBase(ctx context.Context, base string) context.Context {
	return context.WithValue(ctx, assetBaseKey{}, base)
}

// asset is the address of a static file (name relative to web/static, e.g. "js/main.js"). Without
// a base in ctx (a page rendered outside a request) it is the file's plain, revalidated address.
func asset(ctx context.Context, name string) string {
	base, _ := ctx.Value(assetBaseKey{}).(string)
	if base == "" {
		base = "/static/"
	}
	return base + name
}
