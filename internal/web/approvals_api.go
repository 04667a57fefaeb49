package web

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/paging"
)

// maxWait bounds a long poll; clients poll again. Proxies and load balancers commonly cut idle
// connections at a few minutes.
const maxWait = 5 * time.Minute

// approvalJSON is a request as the API returns it, with the page where a person decides it.
type approvalJSON struct {
	approval.Request
	PageURL string `json:"pageUrl"`
}

// approvalProblem is a problem body that carries the request as it stands: a client that lost
// the race sees who won and how.
type approvalProblem struct {
	Problem
	Request *approval.Request `json:"request,omitempty"`
}

// approvalOut is request a as the API returns it.
func approvalOut(r *http.Request, a approval.Request) approvalJSON {
	a.Fingerprint, a.SubmitterID = "", ""
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	return approvalJSON{Request: a, PageURL: scheme + r.Host + "/approvals/" + a.ID}
}

// writeApprovalError answers err as a problem; a late decision carries the winning one.
func writeApprovalError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var de *approval.DecidedError
	if errors.As(err, &de) {
		req := de.Request
		req.Fingerprint = ""
		writeJSONStatus(w, http.StatusConflict, "application/problem+json", approvalProblem{
			Problem: Problem{Title: "Conflict", Status: http.StatusConflict, Detail: err.Error()}, Request: &req})
		return
	}
	writeProblem(w, r, log, err)
}

// apiCreateApproval serves POST /api/v1/approvals: 201 with the new request, or 200 with the
// existing one when the client's id was used before for the same submission.
func (s *Server) apiCreateApproval(w http.ResponseWriter, r *http.Request) {
	var sub approval.Submission
	if err := decodeJSON(w, r, maxApprovalBody, false, &sub); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	req, created, err := s.gate.Submit(r.Context(), sub)
	if err != nil {
		writeApprovalError(w, r, s.log, err)
		return
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	w.Header().Set("Location", "/api/v1/approvals/"+req.ID)
	writeJSON(w, code, approvalOut(r, req))
}

// apiGetApproval serves GET /api/v1/approvals/{id}?wait=60s: at once, or when decided, or when
// the wait ends (still pending), whichever is first.
func (s *Server) apiGetApproval(w http.ResponseWriter, r *http.Request) {
	wait, err := parseWait(r.URL.Query().Get("wait"))
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	req, err := s.gate.Wait(r.Context(), param(r, "id"), wait)
	if err != nil {
		if r.Context().Err() != nil {
			return // the client left
		}
		writeApprovalError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, approvalOut(r, req))
}

func parseWait(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		secs, nerr := strconv.ParseFloat(v, 64)
		if nerr != nil {
			return 0, errs.Errorf(errs.Invalid, "wait must be a duration such as 60s, or seconds")
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d < 0 {
		return 0, errs.Errorf(errs.Invalid, "wait must not be negative")
	}
	return min(d, maxWait), nil
}

// apiListApprovals serves GET /api/v1/approvals?status=pending|decided&cursor=&limit=: pending
// requests oldest first, or decided ones most recently decided first, a page at a time.
func (s *Server) apiListApprovals(w http.ResponseWriter, r *http.Request) {
	pr, err := pageRequest(r)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	var (
		list []approval.Request
		next paging.Cursor
		key  = approval.PendingCursor
	)
	switch st := r.URL.Query().Get("status"); st {
	case "", "pending":
		list, next, err = s.gate.PendingPage(r.Context(), pr)
	case "decided":
		list, next, err = s.gate.DecidedPage(r.Context(), pr)
		key = approval.DecidedCursor
	default:
		err = errs.Errorf(errs.Invalid, "status must be pending or decided, not %q", st)
	}
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writePage(w, r, list, next, key, func(rows []approval.Request, next string) any {
		out := make([]approvalJSON, len(rows))
		for i, a := range rows {
			out[i] = approvalOut(r, a)
		}
		return struct {
			Requests []approvalJSON `json:"requests"`
			Next     string         `json:"next"`
		}{out, next}
	})
}

// apiDecideApproval serves POST /api/v1/approvals/{id}/decision.
func (s *Server) apiDecideApproval(w http.ResponseWriter, r *http.Request) {
	var in approval.DecisionInput
	if err := decodeJSON(w, r, maxApprovalBody, false, &in); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if k := r.Header.Get("Idempotency-Key"); k != "" && in.Key == "" {
		in.Key = k
	}
	in.By = decider(r, s.cfg)
	req, err := s.gate.Decide(r.Context(), param(r, "id"), in)
	if err != nil {
		writeApprovalError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, approvalOut(r, req))
}

// apiApprovalCount serves GET /api/v1/approvals/count: what the navigation shows on every page,
// the length of the one list of waits (plans, permissions, questions, sessions waiting for a
// prompt), with the list's seq.
func (s *Server) apiApprovalCount(w http.ResponseWriter, r *http.Request) {
	l, err := s.waits.List(r.Context())
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"pending": l.Waiting(), "seq": l.Seq})
}

// apiApprovalAudit serves GET /api/v1/approvals/audit?session=&agent=&cursor=&limit=: the audit
// trail, newest first, a page at a time.
func (s *Server) apiApprovalAudit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	pr, err := pageRequest(r)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	ev, next, err := s.gate.AuditPage(r.Context(), approval.AuditFilter{SessionID: q.Get("session"), Agent: q.Get("agent")}, pr)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writePage(w, r, emptyIfNil(ev), next, approval.AuditCursor, func(rows []approval.AuditEvent, next string) any {
		return struct {
			Events []approval.AuditEvent `json:"events"`
			Next   string                `json:"next"`
		}{rows, next}
	})
}

// apiApprovalRules serves GET /api/v1/approvals/rules?revoked=1.
func (s *Server) apiApprovalRules(w http.ResponseWriter, r *http.Request) {
	rules, err := s.gate.Rules(r.Context(), r.URL.Query().Get("revoked") != "")
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if rules == nil {
		rules = []approval.Rule{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"rules": rules})
}

// apiAddApprovalRule serves POST /api/v1/approvals/rules.
func (s *Server) apiAddApprovalRule(w http.ResponseWriter, r *http.Request) {
	var in approval.Rule
	if err := decodeJSON(w, r, maxApprovalBody, false, &in); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	rule, err := s.gate.AddRule(r.Context(), in, decider(r, s.cfg))
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusCreated, rule)
}

// apiRevokeApprovalRule serves DELETE /api/v1/approvals/rules/{rule}.
func (s *Server) apiRevokeApprovalRule(w http.ResponseWriter, r *http.Request) {
	rule, err := s.gate.RevokeRule(r.Context(), param(r, "rule"), decider(r, s.cfg))
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, rule)
}

// apiValidatePlan serves POST /api/v1/approvals/validate: the plan editor's live check.
func (s *Server) apiValidatePlan(w http.ResponseWriter, r *http.Request) {
	var p approval.PlanBody
	if err := decodeJSON(w, r, maxApprovalBody, false, &p); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if err := s.gate.CheckPlan(&p); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "plan": p})
}
