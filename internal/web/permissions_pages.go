package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
)

// The approval inbox also holds the permission requests agents send through `plandash acp`.

// acpAnswerForm serves POST /approvals/acp/answer: a person picks one of the agent's options.
func (s *Server) acpAnswerForm(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	stream, id := r.PostForm.Get("stream"), json.RawMessage(r.PostForm.Get("id"))
	o := acp.PermissionOutcome{Outcome: "selected", OptionID: r.PostForm.Get("option")}
	if fb := strings.TrimSpace(strings.ReplaceAll(r.PostForm.Get("feedback"), "\r\n", "\n")); fb != "" && s.perms.Rejects(stream, id, o.OptionID) {
		if n := len([]rune(fb)); n > approval.MaxComment {
			writePageError(w, r, s.log, errs.Errorf(errs.TooLarge, "the feedback is %d characters; the limit is %d", n, approval.MaxComment))
			return
		}
		o.Feedback = fb // the proxy sends it to the agent in the outcome's _meta
	}
	if err := s.perms.Answer(stream, id, o, decider(r, s.cfg)); err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	target := "/approvals"
	if r.Header.Get("Sec-Fetch-Dest") == "iframe" {
		target = "/embed/approvals"
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}
