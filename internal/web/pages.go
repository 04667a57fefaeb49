package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/views"
	"github.com/plandash/plandash/web/templates"
)

// pageAnswers answers with a page package views composes, under a status and with a notice: how a
// refused form is shown again (and, with 200 and no notice, the page itself).
type pageAnswers struct {
	views *views.Pages
	auth  *Auth // an approval's page carries its seen proof
	log   *slog.Logger
}

// inbox answers with the approvals inbox under status code, with a notice.
func (p pageAnswers) inbox(w http.ResponseWriter, r *http.Request, code int, n templates.Notice) {
	v, err := p.views.Inbox(r.Context())
	if err != nil {
		writePageError(w, r, p.log, err)
		return
	}
	v.Notice = n
	writeHTMLStatus(w, r, p.log, code, templates.ApprovalsInbox(v))
}

// approval is a request's page with its decision form's key and the proof that it shows the
// plan.
func (p pageAnswers) approval(ctx context.Context, id string) (templates.ApprovalPage, error) {
	v, err := p.views.Approval(ctx, id)
	v.Key, v.Seen = newKey(), p.auth.seenProof(id)
	return v, err
}

// approvalRefused shows the request again with why the decision was refused, keeping the
// person's comment and edit unless the request is decided and they no longer matter.
func (p pageAnswers) approvalRefused(w http.ResponseWriter, r *http.Request, id string, in approval.DecisionInput, edit *approval.PlanBody, err error) {
	v, perr := p.approval(r.Context(), id)
	if perr != nil {
		writePageError(w, r, p.log, perr)
		return
	}
	v.Notice, v.Edit, v.Comment, v.Drafts = refusal(in.Action, err), edit, in.Comment, in.Feedback
	writeHTMLStatus(w, r, p.log, status(err), templates.ApprovalView(v))
}

// wait answers with a wait's page under status code, with a notice: a refused answer
// shown again.
func (p pageAnswers) wait(w http.ResponseWriter, r *http.Request, code int, n templates.Notice) {
	v, err := p.views.Wait(r.Context(), param(r, "id"))
	if err != nil {
		writePageError(w, r, p.log, err)
		return
	}
	v.Notice = n
	writeHTMLStatus(w, r, p.log, code, templates.WaitPage(v))
}

// notifySettings answers with the notification settings under status code, with why a form was
// refused (problem). The caller has checked that notifications are on.
func (p pageAnswers) notifySettings(w http.ResponseWriter, r *http.Request, code int, problem string) {
	v, err := p.views.NotifySettings(r.Context())
	if err != nil {
		writePageError(w, r, p.log, err)
		return
	}
	v.Error = problem
	w.WriteHeader(code)
	writeHTML(w, r, p.log, templates.NotifySettings(v))
}

// sharedEditorFailed answers a refused save with the plan page, the draft kept in the editor:
// on a conflict, with both versions and their differences.
func (p pageAnswers) sharedEditorFailed(w http.ResponseWriter, r *http.Request, draft templates.SharedEditor, err error) {
	ctx := r.Context()
	v, verr := p.views.SharedPlan(ctx, draft.Name, nil)
	if verr != nil && !errors.Is(verr, views.ErrSharedUnknown) {
		writeSharedErrorPage(w, r, p.log, verr)
		return
	}
	code := status(err)
	if errors.Is(err, sharedplans.ErrConflict) {
		// Saving again is a deliberate overwrite of what was shown.
		v.Conflict, draft.Revision = p.views.SharedConflict(ctx, draft)
	} else {
		if code == http.StatusInternalServerError {
			p.log.Error("shared plans: save failed", "plan", draft.Name, "err", err)
			draft.Error = "Not saved: something went wrong; the server log has the details."
		} else {
			draft.Error = "Not saved: " + err.Error()
		}
	}
	if v.Plan.Name == "" {
		v.Plan = templates.SharedPlan{Name: draft.Name, Removed: true}
	}
	v.Editor = draft
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = templates.SharedPlanPageView(v).Render(ctx, w)
}
