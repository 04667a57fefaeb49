package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// routes is every route of the server, in one table. Pages take the session cookie (or the token
// once in ?token=), the API takes the bearer token (or the cookie), embed views answer with a boot
// page until the panel has traded its token. Every state-changing browser request is checked for
// cross-site forgery before it reaches a handler.
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	draining := drain(s.stop, s.log) // long polls answer "ask again" once shutdown begins
	r.Use(recoverPanics(s.log))
	r.Use(checkHost(s.cfg.Hosts, s.log))
	r.Use(securityHeaders(s.cfg.FrameAncestors))
	r.Use(csrf(s.log))
	r.Use(compressPages)
	r.Use(s.assets.withBase)
	r.Use(s.auth.loginForm)

	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.Handle("/static/*", s.assets)
	r.Get("/favicon.ico", s.assets.favicon)
	r.Get("/manifest.webmanifest", s.webManifest)
	r.Get("/sw.js", s.serviceWorker)
	// Capability links: the link itself is the credential (no token, no cookie).
	r.Get("/answer/{token}", s.answerLinkPage)
	r.Post("/answer/{token}", s.answerLinkForm)

	r.Group(func(r chi.Router) {
		r.Use(s.auth.RequirePage)
		r.Get("/", s.overview)
		r.Get("/sessions", s.sessions)
		r.Get("/sessions/{id}", s.session)
		r.Get("/sessions/{id}/plans/{plan}/history", s.history)

		r.Get("/approvals", s.approvalsInbox)
		r.Get("/approvals/audit", s.approvalsAudit)
		r.Post("/approvals/rules", s.approvalRuleForm)
		r.Post("/approvals/rules/{rule}/revoke", s.approvalRevokeForm)
		r.Post("/approvals/acp/answer", s.acpAnswerForm)
		r.Get("/approvals/{id}", s.approvalPage)
		r.Post("/approvals/{id}/decide", s.approvalDecideForm)
		r.Post("/approvals/{id}/diff", s.approvalEditDiff)

		r.Get("/waits/{id}", s.waitPage)
		r.Post("/waits/{id}/answer", s.waitAnswerForm)

		r.Get("/shared", s.sharedListPage)
		r.Get("/shared/-/new", s.sharedNewPage)
		r.Post("/shared/-/new", s.sharedCreateForm)
		r.Post("/shared/-/preview", s.sharedPreview)
		r.Get("/shared/{name}", s.sharedPlanPage)
		r.Post("/shared/{name}", s.sharedSaveForm)
		r.Post("/shared/{name}/delete", s.sharedDeleteForm)
		r.Post("/shared/{name}/approval", s.sharedRequestApproval)

		r.Get("/settings/notifications", s.notifySettings)
		r.Post("/settings/notifications/targets", s.notifyAddTargetForm)
		r.Post("/settings/notifications/targets/{id}/delete", s.notifyDeleteTargetForm)
		r.Post("/settings/notifications/targets/{id}/kinds", s.notifyKindsForm)
	})

	r.Group(func(r chi.Router) {
		r.Use(s.auth.requireEmbed)
		r.Get("/embed", s.embedOverview)
		r.Get("/embed/sessions/{id}", s.embedSession)
		r.Get("/embed/approvals", s.embedApprovals)
		r.Get("/embed/approvals/{id}", s.embedApproval)
	})

	r.Group(func(r chi.Router) {
		r.Use(s.auth.RequireAPI)
		r.Get("/ws", s.socket)
		r.Handle("/mcp", s.mcp)
		r.Post("/api/v1/embed/login", s.apiEmbedLogin)
		r.Get("/metrics", s.metricsHandler)

		r.Post("/api/v1/ingest", s.ingest)
		r.With(draining).Post("/api/v1/hooks/{agent}", s.apiAgentHook)
		r.Get("/api/v1/plans", s.apiOverview)
		r.Get("/api/v1/sessions", s.apiSessionsList)
		r.Get("/api/v1/sessions/{id}", s.apiSession)
		r.Get("/api/v1/sessions/{id}/tool-calls", s.apiToolCalls)
		r.Post("/api/v1/sessions/{id}/end", s.apiEndSession)
		r.Get("/api/v1/sessions/{id}/plans/{plan}/history", s.apiHistory)

		r.Post("/api/v1/approvals", s.apiCreateApproval)
		r.Get("/api/v1/approvals", s.apiListApprovals)
		r.Get("/api/v1/approvals/audit", s.apiApprovalAudit)
		r.Get("/api/v1/approvals/count", s.apiApprovalCount)
		r.Get("/api/v1/approvals/rules", s.apiApprovalRules)
		r.Post("/api/v1/approvals/rules", s.apiAddApprovalRule)
		r.Delete("/api/v1/approvals/rules/{rule}", s.apiRevokeApprovalRule)
		r.Post("/api/v1/approvals/validate", s.apiValidatePlan)
		r.With(draining).Get("/api/v1/approvals/{id}", s.apiGetApproval)
		r.Post("/api/v1/approvals/{id}/decision", s.apiDecideApproval)

		r.Get("/api/v1/shared-plans", s.apiSharedList)
		r.Post("/api/v1/shared-plans", s.apiSharedCreate)
		r.Post("/api/v1/shared-plans/-/tools/{tool}", s.apiSharedTool)
		r.Get("/api/v1/shared-plans/{name}", s.apiSharedGet)
		r.Put("/api/v1/shared-plans/{name}", s.apiSharedWrite)
		r.Post("/api/v1/shared-plans/{name}", s.apiSharedWrite)
		r.Delete("/api/v1/shared-plans/{name}", s.apiSharedDelete)
		r.Get("/api/v1/shared-plans/{name}/status", s.apiSharedStatus)
		r.Put("/api/v1/shared-plans/{name}/status", s.apiSharedSetStatus)
		r.Post("/api/v1/shared-plans/{name}/status", s.apiSharedSetStatus)
		r.Get("/api/v1/shared-plans/{name}/history", s.apiSharedHistory)

		r.Get("/api/v1/proxy/permissions", s.apiProxyPermissions)
		r.Post("/api/v1/proxy/permissions", s.apiProxyOffer)
		r.Post("/api/v1/proxy/permissions/resolved", s.apiProxyResolved)
		r.Post("/api/v1/proxy/permissions/answer", s.apiProxyAnswer)
		r.With(draining).Get("/api/v1/proxy/answers", s.apiProxyAnswers)

		r.With(draining).Get("/api/v1/waits", s.apiWaits)
		r.Post("/api/v1/waits/{id}/answer", s.apiAnswerWait)

		r.Get("/api/v1/notify/targets", s.apiNotifyTargets)
		r.Post("/api/v1/notify/targets", s.apiNotifyAddTarget)
		r.Delete("/api/v1/notify/targets/{id}", s.apiNotifyDeleteTarget)
		r.Get("/api/v1/notify/targets/{id}/deliveries", s.apiNotifyDeliveries)
		r.Get("/api/v1/notify/vapid", s.apiNotifyVAPID)
		r.Post("/api/v1/notify/push", s.apiNotifySubscribe)

		r.Get("/api/v1/tokens", s.apiListTokens)
		r.Post("/api/v1/tokens", s.apiCreateToken)
		r.Delete("/api/v1/tokens/{name}", s.apiRevokeToken)
	})
	r.NotFound(notFound(s.log))
	r.MethodNotAllowed(methodNotAllowed(s.log))
	return r
}
