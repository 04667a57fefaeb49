package web

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/web/templates"
)

// answerLinkPage serves GET /answer/{token}: the one-tap confirmation of a capability link. A
// GET never decides (link previews in chat apps fetch it); it only says what the POST will do.
func (s *Server) answerLinkPage(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writePageError(w, r, s.log, errNotifyOff)
		return
	}
	token := param(r, "token")
	lk, err := s.links.Check(r.Context(), token)
	if err != nil {
		writeAnswerRefused(w, r, s.log, lk, err)
		return
	}
	writeAnswerPage(w, r, s.log, http.StatusOK, templates.AnswerLinkPage{State: "confirm", Headline: lk.Label + "?", Title: lk.Title,
		Message: "This link answers this one request once, as if from " + lk.Channel + ". Nothing happens until you press the button.",
		Label:   lk.Label, Action: lk.Action, WaitID: lk.WaitID, Token: token, WaitURL: lk.URL})
}

// answerLinkForm serves POST /answer/{token}: the answer. It needs neither the token nor a
// cookie: the capability is the credential. Cross-site browser posts are refused by the CSRF
// check every POST passes; apps that post from a phone (ntfy's http action) send no Origin.
func (s *Server) answerLinkForm(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writePageError(w, r, s.log, errNotifyOff)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		writePageError(w, r, s.log, errs.Errorf(errs.Invalid, "the form does not parse: %v", err))
		return
	}
	lk, outcome, err := s.links.Redeem(r.Context(), param(r, "token"), r.PostForm.Get("wait"), r.PostForm.Get("action"))
	if err != nil {
		writeAnswerRefused(w, r, s.log, lk, err)
		return
	}
	writeAnswerPage(w, r, s.log, http.StatusOK, templates.AnswerLinkPage{State: "done", Headline: "Done: " + outcome, Title: lk.Title,
		Message: "The agent has its answer. This link is used up.", WaitURL: lk.URL})
}

// answerRefused says why a link does not answer: unknown, used, expired, for another wait or
// action, or its wait ended. Nothing changed.
func writeAnswerRefused(w http.ResponseWriter, r *http.Request, log *slog.Logger, lk notify.Link, err error) {
	var ref *notify.LinkRefusal
	code := status(err)
	if !errors.As(err, &ref) && code == http.StatusInternalServerError {
		writePageError(w, r, log, err)
		return
	}
	p := templates.AnswerLinkPage{State: "refused", Headline: "This link does not answer", Title: lk.Title, Message: err.Error()}
	if lk.URL != "" {
		p.WaitURL = lk.URL
	}
	writeAnswerPage(w, r, log, code, p)
}

// writeAnswerPage answers with an answer link's page; the link's token is in the address, so
// the page sends no referrer.
func writeAnswerPage(w http.ResponseWriter, r *http.Request, log *slog.Logger, code int, p templates.AnswerLinkPage) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer") // the token is in the address
	w.WriteHeader(code)
	if err := templates.AnswerLink(p).Render(r.Context(), w); err != nil {
		log.Error("render page", "path", "/answer/…", "err", err)
	}
}

// errNotifyOff answers the notification routes of a server built without a notifier.
var errNotifyOff = errs.New(errs.NotFound, "notifications are not set up on this server")
