package web

import (
	"net/http"
	"strconv"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/paging"

	"github.com/plandash/plandash/internal/plans"
)

// apiSessionsList serves GET /api/v1/sessions?cursor=&limit=: every session, active or not, most
// recently seen first, a page at a time.
func (s *Server) apiSessionsList(w http.ResponseWriter, r *http.Request) {
	pr, err := pageRequest(r)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	list, next, err := s.plans.SessionsPage(r.Context(), pr)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writePage(w, r, emptyIfNil(list), next, plans.LastSeenCursor, func(rows []plans.Session, next string) any {
		return struct {
			Sessions []plans.Session `json:"sessions"`
			Next     string          `json:"next"`
		}{rows, next}
	})
}

// apiToolCalls serves GET /api/v1/sessions/{id}/tool-calls?cursor=&limit=: a session's tool calls
// in the order they started, a page at a time; calls that start during a walk come at its end.
func (s *Server) apiToolCalls(w http.ResponseWriter, r *http.Request) {
	pr, err := pageRequest(r)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	list, next, err := s.plans.ToolCallsPage(r.Context(), param(r, "id"), pr)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writePage(w, r, emptyIfNil(list), next, plans.ToolCallCursor, func(rows []plans.ToolCall, next string) any {
		return struct {
			ToolCalls []plans.ToolCall `json:"toolCalls"`
			Next      string           `json:"next"`
		}{rows, next}
	})
}

// apiOverview serves GET /api/v1/plans?cursor=&limit=: the overview's data, the active sessions
// with their live plans, a page of sessions at a time, most recently seen first.
func (s *Server) apiOverview(w http.ResponseWriter, r *http.Request) {
	pr, err := pageRequest(r)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	groups, next, seq, err := s.plans.ActivePage(r.Context(), pr)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	type group struct {
		Session plans.Session `json:"session"`
		Plans   []plans.Plan  `json:"plans"`
	}
	out := make([]group, len(groups))
	for i, g := range groups {
		out[i] = group{g.Session, emptyIfNil(g.Plans)}
	}
	writePage(w, r, out, next, func(g group) paging.Cursor { return plans.LastSeenCursor(g.Session) }, func(rows []group, next string) any {
		return struct {
			Seq      uint64  `json:"seq"`
			Sessions []group `json:"sessions"`
			Next     string  `json:"next"`
		}{seq, rows, next}
	})
}

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

// apiHistory serves GET /api/v1/sessions/{id}/plans/{plan}/history?from=&to=&cursor=&limit=: one
// page of revisions (newest first, without plans) and the diff between the two compared.
func (s *Server) apiHistory(w http.ResponseWriter, r *http.Request) {
	hist, err := s.views.History(r.Context(), param(r, "id"), param(r, "plan"), r.URL)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	h, from, to := hist.Page, hist.From, hist.To
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
