package web

import (
	"io/fs"
	"net/http"

	"github.com/plandash/plandash/web/static"
)

// manifest is the web app manifest: plandash installs as an app (its own window, its icon),
// which is also what lets a phone show its pushes.
const manifest = `{
  "name": "plandash",
  "short_name": "plandash",
  "description": "Agents' plans, live, and the gate where you approve them",
  "start_url": "/",
  "scope": "/",
  "display": "standalone",
  "background_color": "#ffffff",
  "theme_color": "#2563eb",
  "icons": [
    {"src": "/static/icon-192.png", "sizes": "192x192", "type": "image/png"},
    {"src": "/static/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any maskable"},
    {"src": "/static/favicon.svg", "sizes": "any", "type": "image/svg+xml"}
  ]
}
`

// webManifest serves GET /manifest.webmanifest.
func (s *Server) webManifest(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/manifest+json")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write([]byte(manifest))
}

// serviceWorker serves GET /sw.js: the worker must be served from the root for its scope to
// be the whole site, and revalidated on every load so a new release reaches it.
func (s *Server) serviceWorker(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(static.FS, "sw.js")
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Service-Worker-Allowed", "/")
	w.Write(b)
}
