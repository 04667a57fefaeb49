package web

import (
	"net/http"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// approvalEditDiff serves POST /approvals/{id}/diff: what the gate's editor would change, as
// the structured diff the decided page will show, so a person sees their edit before they
// "approve with changes". It only reads; the form is the decision form as it stands.
func (s *Server) approvalEditDiff(w http.ResponseWriter, r *http.Request) {
	form, err := readForm(w, r)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	req, err := s.gate.Get(r.Context(), param(r, "id"))
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	edited, err := planFromForm(form, req.Plan.Type)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	d := plans.StructDiff(req.Plan.Plan(req.SessionID), edited.Plan(req.SessionID))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = templates.PlanDiff(d).Render(r.Context(), w)
}
