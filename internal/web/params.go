package web

import (
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"
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
