package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/waits"
)

// notifySettings serves GET /settings/notifications.
func (s *Server) notifySettings(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writePageError(w, r, s.log, errNotifyOff)
		return
	}
	s.pages.notifySettings(w, r, http.StatusOK, "")
}

// notifyAddTargetForm serves POST /settings/notifications/targets.
func (s *Server) notifyAddTargetForm(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writePageError(w, r, s.log, errNotifyOff)
		return
	}
	form, err := readForm(w, r)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	t, err := targetFromForm(form)
	if err == nil {
		_, err = s.notify.AddTarget(r.Context(), t)
	}
	if err != nil {
		if status(err) == http.StatusInternalServerError {
			writePageError(w, r, s.log, err)
			return
		}
		s.pages.notifySettings(w, r, status(err), err.Error())
		return
	}
	http.Redirect(w, r, "/settings/notifications", http.StatusSeeOther)
}

// targetFromForm reads the settings page's form.
func targetFromForm(f url.Values) (notify.Target, error) {
	list := func(k string) []string {
		var out []string
		for _, v := range strings.Split(f.Get(k), ",") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	t := notify.Target{Kind: notify.Kind(f.Get("kind")), URL: strings.TrimSpace(f.Get("url")), Name: strings.TrimSpace(f.Get("name")),
		Secret: f.Get("secret"), Priority: f.Get("priority"),
		Filter: notify.Filter{Kinds: list("kinds"), Agents: list("agents"), Machines: list("machines")}}
	if d := strings.TrimSpace(f.Get("delay")); d != "" && d != "0" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return t, errs.Errorf(errs.Invalid, "target delay: %q is not a number of seconds", d)
		}
		t.Delay = time.Duration(n) * time.Second
	}
	if t.Kind == notify.WebPush {
		return t, errs.New(errs.Invalid, "target kind: browsers subscribe to Web Push with the button on this page")
	}
	return t, nil
}

// notifyDeleteTargetForm serves POST /settings/notifications/targets/{id}/delete.
func (s *Server) notifyDeleteTargetForm(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writePageError(w, r, s.log, errNotifyOff)
		return
	}
	if err := s.notify.DeleteTarget(r.Context(), param(r, "id")); err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	http.Redirect(w, r, "/settings/notifications", http.StatusSeeOther)
}

// notifyKindsForm serves POST /settings/notifications/targets/{id}/kinds: the kinds of wait a
// stored target announces, one checkbox each (a browser that should not buzz while a session
// only waits for its next prompt unticks "input"). Every box ticked announces every kind.
func (s *Server) notifyKindsForm(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writePageError(w, r, s.log, errNotifyOff)
		return
	}
	form, err := readForm(w, r)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	kinds, err := kindsFromForm(form["kind"])
	if err == nil {
		_, err = s.notify.SetKinds(r.Context(), param(r, "id"), kinds)
	}
	if err != nil {
		if status(err) == http.StatusInternalServerError {
			writePageError(w, r, s.log, err)
			return
		}
		s.pages.notifySettings(w, r, status(err), err.Error())
		return
	}
	http.Redirect(w, r, "/settings/notifications", http.StatusSeeOther)
}

// kindsFromForm checks the ticked kinds: nil when every kind is ticked (a filter that allows
// all, and the kinds added later too).
func kindsFromForm(ticked []string) ([]string, error) {
	var kinds []string
	for _, k := range waits.Kinds {
		if slices.Contains(ticked, string(k)) {
			kinds = append(kinds, string(k))
		}
	}
	for _, k := range ticked {
		if !slices.Contains(kinds, k) {
			return nil, errs.Errorf(errs.Invalid, "kinds: %q is not a kind of wait", clipUA(k))
		}
	}
	switch len(kinds) {
	case 0:
		return nil, errs.New(errs.Invalid, "kinds: tick at least one kind of wait, or remove the target")
	case len(waits.Kinds):
		return nil, nil
	}
	return kinds, nil
}
