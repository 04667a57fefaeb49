package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// approvalsInbox serves GET /approvals.
func (s *Server) approvalsInbox(w http.ResponseWriter, r *http.Request) {
	s.pages.inbox(w, r, http.StatusOK, templates.Notice{})
}

// approvalPage serves GET /approvals/{id}.
func (s *Server) approvalPage(w http.ResponseWriter, r *http.Request) {
	p, err := s.pages.approval(r.Context(), param(r, "id"))
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	writeHTML(w, r, s.log, templates.ApprovalView(p))
}

// approvalDecideForm serves POST /approvals/{id}/decide: the page's decision. Success goes back
// to where the person was; a refusal shows the page again with what happened and what they typed.
func (s *Server) approvalDecideForm(w http.ResponseWriter, r *http.Request) {
	ctx, id := r.Context(), param(r, "id")
	form, err := readForm(w, r)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	in := approval.DecisionInput{Action: approval.Action(form.Get("action")), Comment: strings.ReplaceAll(form.Get("comment"), "\r\n", "\n"),
		Key: form.Get("key"), By: decider(r, s.cfg)}
	fromInbox := form.Get("back") == "inbox"
	if in.Action == approval.RequestChanges {
		if in.Feedback, err = feedbackFromForm(form); err != nil {
			s.pages.approvalRefused(w, r, id, in, nil, err)
			return
		}
	}
	var edit *approval.PlanBody
	if in.Action == approval.Approve || in.Action == approval.Modify {
		req, err := s.gate.Get(ctx, id)
		if err != nil {
			writePageError(w, r, s.log, err)
			return
		}
		// A decided request falls through to Decide, which says who decided first.
		if in.Action == approval.Approve && !req.Decided() {
			if refused := approveRefused(form, req, s.auth.seenOK(req.ID, form.Get("seen"))); refused != nil {
				if fromInbox {
					s.pages.inbox(w, r, status(refused), refusal(in.Action, refused))
					return
				}
				kept, _ := planFromForm(form, req.Plan.Type)
				s.pages.approvalRefused(w, r, id, in, keptEdit(form, kept), refused)
				return
			}
		}
		if in.Action == approval.Modify {
			p, err := planFromForm(form, req.Plan.Type)
			if err != nil {
				s.pages.approvalRefused(w, r, id, in, nil, err)
				return
			}
			shown := p
			in.Plan, edit = &p, &shown
		}
	}
	if _, err := s.gate.Decide(ctx, id, in); err != nil {
		if errs.KindOf(err) == errs.NotFound {
			writePageError(w, r, s.log, err)
			return
		}
		if fromInbox {
			s.pages.inbox(w, r, status(err), refusal(in.Action, err))
			return
		}
		s.pages.approvalRefused(w, r, id, in, edit, err)
		return
	}
	target := "/approvals/" + url.PathEscape(id)
	if fromInbox {
		target = "/approvals"
	}
	if r.Header.Get("Sec-Fetch-Dest") == "iframe" {
		target = "/embed" + target // decided from an IDE panel: stay in the panel's views
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

func refusal(a approval.Action, err error) templates.Notice {
	var de *approval.DecidedError
	if errors.As(err, &de) && de.Request.Decision == nil && de.Request.Handover != nil {
		h := de.Request.Handover
		return templates.Notice{Kind: "conflict", Text: "Your " + strings.ReplaceAll(string(a), "_", " ") + " was not recorded: " +
			h.Note + " (at " + h.At.Local().Format("15:04:05") + "), and an answer given here no longer reaches the agent."}
	}
	if errors.As(err, &de) && de.Request.Decision != nil {
		r, d := de.Request, de.Request.Decision
		why := d.By + " " + r.Status.Words() + " it first, at " + d.At.Local().Format("15:04:05") + "."
		switch {
		case d.Expired:
			why = "the deadline passed with no decision, so the default outcome applied: " + r.Status.Words() + "."
		case d.Rule != "":
			why = "an auto-approve rule approved it when it arrived."
		}
		return templates.Notice{Kind: "conflict", Text: "Your " + strings.ReplaceAll(string(a), "_", " ") + " was not recorded: " + why}
	}
	return templates.Notice{Kind: "error", Text: "Not recorded: " + err.Error() + "."}
}

func readForm(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxApprovalBody)
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errs.Errorf(errs.TooLarge, "the form is larger than %d bytes", mbe.Limit)
		}
		return nil, errs.Errorf(errs.Invalid, "the form could not be read: %v", err)
	}
	return r.PostForm, nil
}

// planFromForm reads the editor's fields. Browsers send fields in document order, so the order
// of the rows on the page is the order of the entries.
func planFromForm(form url.Values, typ string) (approval.PlanBody, error) {
	p := approval.PlanBody{Type: typ}
	switch typ {
	case approval.TypeItems:
		content, prio, st := form["content"], form["priority"], form["status"]
		if len(prio) != len(content) || len(st) != len(content) {
			return p, errs.Errorf(errs.Invalid, "the editor sent %d entries but %d priorities and %d statuses", len(content), len(prio), len(st))
		}
		for i := range content {
			p.Entries = append(p.Entries, plans.Entry{Content: strings.TrimSpace(content[i]), Priority: prio[i], Status: st[i]})
		}
	case approval.TypeMarkdown:
		// Browsers send a textarea's line breaks as CRLF; the agent wrote LF.
		p.Markdown = strings.ReplaceAll(form.Get("markdown"), "\r\n", "\n")
	case approval.TypeDAG:
		p.Calls = []byte(strings.TrimSpace(form.Get("calls")))
	}
	return p, nil
}

// approvalRuleForm serves POST /approvals/rules.
func (s *Server) approvalRuleForm(w http.ResponseWriter, r *http.Request) {
	form, err := readForm(w, r)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	in := approval.Rule{Agent: form.Get("agent"), SessionID: form.Get("session"), Kind: form.Get("kind"),
		Machine: form.Get("machine"), Cwd: form.Get("cwd"), Note: form.Get("note")}
	if _, err := s.gate.AddRule(r.Context(), in, decider(r, s.cfg)); err != nil {
		s.pages.inbox(w, r, status(err), templates.Notice{Kind: "error", Text: "The rule was not added: " + err.Error() + "."})
		return
	}
	http.Redirect(w, r, "/approvals#rules-h", http.StatusSeeOther)
}

// approvalRevokeForm serves POST /approvals/rules/{rule}/revoke.
func (s *Server) approvalRevokeForm(w http.ResponseWriter, r *http.Request) {
	if _, err := s.gate.RevokeRule(r.Context(), param(r, "rule"), decider(r, s.cfg)); err != nil {
		s.pages.inbox(w, r, status(err), templates.Notice{Kind: "error", Text: "Not revoked: " + err.Error() + "."})
		return
	}
	http.Redirect(w, r, "/approvals#rules-h", http.StatusSeeOther)
}

// approvalsAudit serves GET /approvals/audit?session=&agent=.
func (s *Server) approvalsAudit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, err := s.views.Audit(r.Context(), q.Get("session"), q.Get("agent"))
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	writeHTML(w, r, s.log, templates.AuditLog(p))
}
