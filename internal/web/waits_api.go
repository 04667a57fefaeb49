package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/waits"
)

// The one list of waits as JSON (docs/api-waits.md is the contract the notifier and the IDE
// extension read).

// maxWaitsBody bounds an answer: a question's free text and its answers, with room for JSON.
const maxWaitsBody = 4 * waits.MaxAnswerText

// apiWaits serves GET /api/v1/waits?after=SEQ&wait=30s: the list at once, or as soon as its seq
// passes SEQ, or at the end of the wait.
func (s *Server) apiWaits(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	wait, err := parseWait(q.Get("wait"))
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	var after uint64
	if v := q.Get("after"); v != "" {
		if after, err = strconv.ParseUint(v, 10, 64); err != nil {
			writeProblem(w, r, s.log, errs.Errorf(errs.Invalid, "after must be a sequence number from an earlier answer, not %q", v))
			return
		}
	}
	var l waits.List
	if q.Has("after") && wait > 0 {
		l, err = s.waits.Await(r.Context(), after, wait)
	} else {
		l, err = s.waits.List(r.Context())
	}
	if err != nil {
		if r.Context().Err() != nil {
			return // the client left, or the server stops (drain answers "retry")
		}
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, l)
}

// waitEnded is the 409 body of an answer that came too late: the problem, and what had already
// happened, so a client that lost the race says so.
type waitEnded struct {
	Problem
	Error   string `json:"error"`
	Outcome string `json:"outcome"`
}

// apiAnswerWait serves POST /api/v1/waits/{id}/answer {"action", "text", "answers"}.
func (s *Server) apiAnswerWait(w http.ResponseWriter, r *http.Request) {
	var a waits.Answer
	if err := decodeJSON(w, r, maxWaitsBody, true, &a); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	a.By = decider(r, s.cfg)
	ended, outcome, err := s.waits.Answer(r.Context(), param(r, "id"), a)
	var ee *waits.EndedError
	if errors.As(err, &ee) {
		writeJSONStatus(w, http.StatusConflict, "application/problem+json", waitEnded{
			Problem: Problem{Title: "Conflict", Status: http.StatusConflict, Detail: err.Error(), Code: errs.Conflict.String()},
			Error:   err.Error(), Outcome: ee.Outcome})
		return
	}
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"wait": ended, "outcome": outcome})
}
