package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// The approval inbox also holds the permission requests agents send through `plandash acp`.

// acpPermissionViews turns the relayed requests into what the inbox draws.
func (s *Server) acpPermissionViews() []templates.AcpPermission {
	perms := s.perms.List()
	out := make([]templates.AcpPermission, 0, len(perms))
	for _, p := range perms {
		v := templates.AcpPermission{Stream: p.Stream, ID: string(p.ID), SessionID: p.SessionID, Offered: p.Offered,
			Answered: p.Answered, ResolvedBy: p.ResolvedBy, Resolved: p.Resolved, Title: "Permission requested"}
		if p.Outcome != nil {
			v.Outcome = p.Outcome.Outcome
			if p.Outcome.OptionID != "" {
				v.Outcome = p.Outcome.OptionID
			}
		}
		if req, err := acp.DecodeRequestPermissionParams(p.Params); err == nil {
			for _, o := range req.Options {
				v.Options = append(v.Options, templates.PermissionOption{ID: o.OptionID, Name: o.Name, Kind: o.Kind})
			}
			tc := req.ToolCall
			if tc.Title != nil && *tc.Title != "" {
				v.Title = *tc.Title
			}
			if tc.Kind != nil {
				v.Kind = *tc.Kind
			}
			v.Plan = exitPlanText(tc.RawInput)
			var detail []string
			for _, raw := range []json.RawMessage{tc.RawInput, tc.Content} {
				if len(raw) > 0 && acp.Valid(raw) {
					detail = append(detail, plans.FormatJSON(raw).Display())
				}
			}
			v.Detail = strings.Join(detail, "\n")
		}
		out = append(out, v)
	}
	return out
}

// exitPlanText is the plan a plan-mode agent asks to leave plan mode with (rawInput.plan).
func exitPlanText(raw json.RawMessage) string {
	var in struct {
		Plan string `json:"plan"`
	}
	if json.Unmarshal(raw, &in) != nil {
		return ""
	}
	return in.Plan
}

// rejecting reports whether option is one of the request's reject options: only a rejection
// carries the person's feedback to the agent.
func (s *Server) rejecting(stream string, id json.RawMessage, option string) bool {
	for _, p := range s.perms.List() {
		if p.Stream != stream || string(p.ID) != string(id) {
			continue
		}
		req, err := acp.DecodeRequestPermissionParams(p.Params)
		if err != nil {
			return false
		}
		for _, o := range req.Options {
			if o.OptionID == option {
				return strings.HasPrefix(o.Kind, "reject")
			}
		}
	}
	return false
}

// acpAnswerForm serves POST /approvals/acp/answer: a person picks one of the agent's options.
func (s *Server) acpAnswerForm(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, err)
		return
	}
	stream, id := r.PostForm.Get("stream"), json.RawMessage(r.PostForm.Get("id"))
	o := acp.PermissionOutcome{Outcome: "selected", OptionID: r.PostForm.Get("option")}
	if fb := strings.TrimSpace(strings.ReplaceAll(r.PostForm.Get("feedback"), "\r\n", "\n")); fb != "" && s.rejecting(stream, id, o.OptionID) {
		if n := len([]rune(fb)); n > approval.MaxComment {
			s.errorPage(w, r, errs.Errorf(errs.TooLarge, "the feedback is %d characters; the limit is %d", n, approval.MaxComment))
			return
		}
		o.Feedback = fb // the proxy sends it to the agent in the outcome's _meta
	}
	if err := s.perms.Answer(stream, id, o, s.decider(r)); err != nil {
		s.errorPage(w, r, err)
		return
	}
	target := "/approvals"
	if r.Header.Get("Sec-Fetch-Dest") == "iframe" {
		target = "/embed/approvals"
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}
