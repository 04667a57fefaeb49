package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/a-h/templ"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/dag"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

func (s *Server) page(w http.ResponseWriter, r *http.Request, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := c.Render(r.Context(), w); err != nil {
		s.log.Error("render page", "path", r.URL.Path, "err", err)
	}
}

// errorPage answers a page request that failed, in HTML.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, err error) {
	code := status(err)
	msg := err.Error()
	if code == http.StatusInternalServerError {
		s.log.Error("page failed", "path", r.URL.Path, "err", err)
		msg = "Something went wrong; the server log has the details."
	} else if code == http.StatusNotFound {
		msg = "There is nothing here: the session or plan does not exist (yet)."
	}
	writeErrorPage(w, r, code, msg)
}

// sessions serves GET /sessions.
func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.plans.Sessions(r.Context(), 200)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.page(w, r, templates.SessionsPage(list, s.plans.Now(), 0))
}

// session serves GET /sessions/{id}.
func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	d, err := s.sessionDetail(r.Context(), param(r, "id"))
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	decisions, err := s.sessionDecisions(r.Context(), d.Session.ID)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.page(w, r, templates.SessionPageView(templates.SessionPage{Detail: d, Plans: s.render.views(r.Context(), d.Plans, d.ToolCalls, false),
		Waiting: s.waitingBySession(r.Context())[d.Session.ID], Now: s.plans.Now(), Decisions: decisions}))
}

// sessionDecisions are the gate's latest decisions on a session's requests, for its page.
func (s *Server) sessionDecisions(ctx context.Context, sessionID string) ([]approval.AuditEvent, error) {
	events, _, err := s.gate.AuditPage(ctx, approval.AuditFilter{SessionID: sessionID}, paging.Request{Limit: sessionDecisionsShown * 3})
	if err != nil {
		return nil, err
	}
	var out []approval.AuditEvent
	for _, e := range events {
		if e.RequestID != "" && e.Event != approval.EventRequested && len(out) < sessionDecisionsShown {
			out = append(out, e)
		}
	}
	return out, nil
}

// sessionDecisionsShown is how many of the gate's decisions a session's page lists.
const sessionDecisionsShown = 10

// apiSession serves GET /api/v1/sessions/{id}.
func (s *Server) apiSession(w http.ResponseWriter, r *http.Request) {
	calls := plans.RecentToolCalls
	if v := r.URL.Query().Get("calls"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 5000 {
			writeProblem(w, r, s.log, errs.Errorf(errs.Invalid, "calls must be a number of tool calls from 1 to 5000"))
			return
		}
		calls = n
	}
	d, err := s.plans.SessionCalls(r.Context(), param(r, "id"), calls)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// apiEndSession serves POST /api/v1/sessions/{id}/end.
func (s *Server) apiEndSession(w http.ResponseWriter, r *http.Request) {
	sess, err := s.plans.EndSession(r.Context(), param(r, "id"))
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, sess)
}

// history serves GET /sessions/{id}/plans/{plan}/history?from=&to=&cursor=&limit=.
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	h, from, to, err := s.historyData(r)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	if from.Kind == plans.KindDAG && to.Kind == plans.KindDAG {
		// The page also lists the calls added, removed and changed; the API leaves that out.
		a, errA := s.render.dags.get(from)
		b, errB := s.render.dags.get(to)
		if errA == nil && errB == nil && a.Plan != nil && b.Plan != nil {
			d := dag.Diff(a.Plan, b.Plan)
			h.DAGDiff = &d
		}
	}
	s.page(w, r, templates.History(h))
}

// apiHistory serves GET /api/v1/sessions/{id}/plans/{plan}/history?from=&to=&cursor=&limit=: one
// page of revisions (newest first, without plans) and the diff between the two compared.
func (s *Server) apiHistory(w http.ResponseWriter, r *http.Request) {
	h, from, to, err := s.historyData(r)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	// The line diff the API has always served; the page shows only the structured one.
	type line struct {
		Op   string `json:"op"`
		Text string `json:"text"`
	}
	lines := plans.Diff(from.Lines(), to.Lines())
	diff := make([]line, len(lines))
	for i, l := range lines {
		diff[i] = line{string(rune(l.Op)), l.Text}
	}
	next := ""
	if h.Older != "" {
		next = plans.RevisionCursor(h.Revisions[len(h.Revisions)-1]).String()
		w.Header().Set("Link", "<"+h.Older+`>; rel="next"`)
	}
	writeJSON(w, http.StatusOK, map[string]any{"revisions": h.Revisions, "newest": h.Newest, "next": next, "from": h.From, "to": h.To, "diff": diff, "changes": h.Changes})
}

// historyData loads what the history page shows and no more: one page of the revision list
// (?cursor=&limit=, without plans) and the two revisions compared, each read on its own.
func (s *Server) historyData(r *http.Request) (h templates.HistoryPage, from, to plans.Plan, err error) {
	ctx, sid, pid := r.Context(), param(r, "id"), param(r, "plan")
	sess, err := s.plans.SessionOnly(ctx, sid)
	if err != nil {
		return h, from, to, err
	}
	pr, err := pageRequest(r)
	if err != nil {
		return h, from, to, err
	}
	revs, next, newest, err := s.plans.RevisionsPage(ctx, sid, pid, pr)
	if err != nil {
		return h, from, to, err
	}
	h = templates.HistoryPage{Session: sess, PlanID: pid, Revisions: revs, Newest: newest, To: newest, From: max(newest-1, 1)}
	if !next.IsZero() {
		h.Older = nextURL(r, next)
	}
	if !pr.After.IsZero() {
		q := r.URL.Query()
		q.Del("cursor")
		h.Newer = "?" + q.Encode()
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"from", &h.From}, {"to", &h.To}} {
		if v := r.URL.Query().Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > newest {
				return h, from, to, errs.Errorf(errs.Invalid, "%s must be a revision between 1 and %d", p.name, newest)
			}
			*p.dst = n
		}
	}
	fromRev, err := s.plans.RevisionAt(ctx, sid, pid, h.From)
	if err != nil {
		return h, from, to, err
	}
	toRev, err := s.plans.RevisionAt(ctx, sid, pid, h.To)
	if err != nil {
		return h, from, to, err
	}
	from, to = fromRev.Plan, toRev.Plan
	base := from
	if h.From == 1 && h.To == 1 {
		// The first revision against nothing: what the plan started with, all of it new.
		h.First = true
		base = plans.Plan{Kind: to.Kind, Type: to.Type}
	}
	h.Changes = plans.StructDiff(base, to)
	return h, from, to, nil
}

// sessionDetail loads a session for its page, numbered in the live sequence: the number is read
// before the store, so anything that changes after reaches the page live or by catch-up.
func (s *Server) sessionDetail(ctx context.Context, id string) (plans.SessionDetail, error) {
	seq := s.live.Seq()
	d, err := s.plans.Session(ctx, id)
	d.Seq = seq
	return d, err
}

// healthz serves GET /healthz: liveness, with the store's change number.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "seq": s.plans.Seq()})
}
