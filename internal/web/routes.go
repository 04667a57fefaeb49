package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/plandash/plandash/web/static"
)

// routes is every route of the server, in one place.
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Use(securityHeaders(s.cfg.FrameAncestors))
	// Every state-changing request from a browser must come from this origin: Sec-Fetch-Site and
	// Origin are checked; non-browser clients (curl, the proxy) send neither and pass.
	r.Use(http.NewCrossOriginProtection().Handler)

	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "seq": s.svc.Seq()})
	})
	r.Get("/static/dag.css", dagCSS)
	r.Handle("/static/*", http.StripPrefix("/static/", staticFiles()))

	r.Group(func(r chi.Router) {
		r.Use(s.auth.RequirePage)
		r.Get("/", s.overview)
		r.Get("/sessions", s.sessions)
		r.Get("/sessions/{id}", s.session)
		r.Get("/sessions/{id}/plans/{plan}/history", s.history)
		s.approvalPages(r)
		s.sharedPlanPages(r)
		s.sharedApprovalRoutes(r)
		s.proxyInboxPages(r)
	})
	r.Group(func(r chi.Router) {
		r.Use(s.auth.RequireAPI)
		r.Get("/ws", s.socket)
		r.Post("/api/v1/ingest", s.ingest)
		r.Post("/api/v1/hooks/claude", s.apiClaudeHook)
		r.Get("/api/v1/plans", s.apiOverview)
		r.Get("/api/v1/sessions/{id}", s.apiSession)
		r.Post("/api/v1/sessions/{id}/end", s.apiEndSession)
		r.Get("/api/v1/sessions/{id}/plans/{plan}/history", s.apiHistory)
		r.Handle("/mcp", s.mcpHandler())
		s.approvalAPI(r)
		s.sharedPlanAPI(r)
		s.proxyAPI(r)
	})
	s.embedRoutes(r)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeJSONStatus(w, http.StatusNotFound, "application/problem+json", Problem{Title: "Not Found", Status: 404, Detail: "no such route: " + r.URL.Path})
	})
	return r
}

func staticFiles() http.Handler {
	fs := http.FileServerFS(static.FS)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		fs.ServeHTTP(w, r)
	})
}
