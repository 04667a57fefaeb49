package web

import (
	"net/http"

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
