package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/web/templates"
)

// sharedRequestApproval serves POST /shared/{name}/approval: submit the plan as it is at the
// revision the page showed, mark it as waiting, and open the request.
func (s *Server) sharedRequestApproval(w http.ResponseWriter, r *http.Request) {
	rev, err := strconv.Atoi(r.FormValue("revision"))
	if err != nil {
		s.errorPage(w, r, errs.New(errs.Unprocessable, "the form lacks the plan's revision"))
		return
	}
	req, err := s.shared.RequestApproval(r.Context(), s.gate, param(r, "name"), rev)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	http.Redirect(w, r, "/approvals/"+url.PathEscape(req.ID), http.StatusSeeOther)
}

// sharedStripSize is how many shared plans the overview lists.
const sharedStripSize = 8

// sharedStrip is the overview's view of the shared plans: the most recently updated, and how many
// there are.
func (s *Server) sharedStrip(r *http.Request) ([]templates.SharedPlan, int) {
	sums, total, err := s.shared.Strip(r.Context(), sharedStripSize)
	if err != nil {
		s.log.Warn("overview: listing shared plans", "err", err)
		return nil, 0
	}
	out := make([]templates.SharedPlan, len(sums))
	for i, p := range sums {
		out[i] = templates.SharedPlan{Name: p.Name, Title: p.Title, Author: p.Author, Status: p.Status, Revision: p.Revision, UpdatedAt: p.UpdatedAt}
	}
	return out, total
}
