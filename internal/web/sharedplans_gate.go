package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/plandash/plandash/internal/errs"
)

// sharedRequestApproval serves POST /shared/{name}/approval: submit the plan as it is at the
// revision the page showed, mark it as waiting, and open the request.
func (s *Server) sharedRequestApproval(w http.ResponseWriter, r *http.Request) {
	rev, err := strconv.Atoi(r.FormValue("revision"))
	if err != nil {
		writePageError(w, r, s.log, errs.New(errs.Unprocessable, "the form lacks the plan's revision"))
		return
	}
	req, err := s.shared.RequestApproval(r.Context(), s.gate, param(r, "name"), rev)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	http.Redirect(w, r, "/approvals/"+url.PathEscape(req.ID), http.StatusSeeOther)
}
