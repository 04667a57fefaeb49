package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/web/templates"
)

// waitPage serves GET /waits/{id}: an agent's question with its form, or how it ended.
func (s *Server) waitPage(w http.ResponseWriter, r *http.Request) {
	s.pages.wait(w, r, http.StatusOK, templates.Notice{})
}

// waitAnswerForm serves POST /waits/{id}/answer: the page's form, one field per question
// (q0, q1, …: the chosen labels) and its own words (q0-text, …), which win over a choice.
func (s *Server) waitAnswerForm(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxWaitsBody)
	if err := r.ParseForm(); err != nil {
		writePageError(w, r, s.log, errs.Wrap(errs.Invalid, err, "the answer form could not be read: "+err.Error()))
		return
	}
	id := param(r, "id")
	rec, err := s.waits.Kept(r.Context(), id)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	a := waits.Answer{Answers: map[string][]string{}, By: decider(r, s.cfg)}
	for i, q := range rec.Questions {
		key := "q" + strconv.Itoa(i)
		if text := strings.TrimSpace(r.PostForm.Get(key + "-text")); text != "" {
			a.Answers[q.Question] = []string{text}
			continue
		}
		a.Answers[q.Question] = r.PostForm[key]
	}
	_, _, err = s.waits.Answer(r.Context(), id, a)
	var ee *waits.EndedError
	switch {
	case errors.As(err, &ee):
		s.pages.wait(w, r, http.StatusConflict, templates.Notice{Kind: "conflict", Text: "Already answered: " + ee.Outcome})
		return
	case err != nil && errs.KindOf(err) != errs.Internal:
		s.pages.wait(w, r, status(err), templates.Notice{Kind: "error", Text: err.Error()})
		return
	case err != nil:
		writePageError(w, r, s.log, err)
		return
	}
	http.Redirect(w, r, "/waits/"+url.PathEscape(id), http.StatusSeeOther)
}
