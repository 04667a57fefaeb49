package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/web/templates"
)

// recentDeliveries is how many of each target's deliveries the settings page lists.
const recentDeliveries = 10

// notifySettings serves GET /settings/notifications.
func (s *Server) notifySettings(w http.ResponseWriter, r *http.Request) {
	s.notifySettingsWith(w, r, http.StatusOK, "")
}

func (s *Server) notifySettingsWith(w http.ResponseWriter, r *http.Request, code int, problem string) {
	if s.notify == nil {
		s.errorPage(w, r, errNotifyOff)
		return
	}
	p, err := s.notifyData(r.Context())
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	p.Error = problem
	w.WriteHeader(code)
	s.page(w, r, templates.NotifySettings(p))
}

func (s *Server) notifyData(ctx context.Context) (templates.NotifySettingsPage, error) {
	var p templates.NotifySettingsPage
	v, err := s.notify.VAPID(ctx)
	if err != nil {
		return p, err
	}
	p.VAPIDKey = v.PublicKey()
	ts, err := s.notify.Targets(ctx)
	if err != nil {
		return p, err
	}
	for _, t := range ts {
		ds, err := s.notify.Deliveries(ctx, t.ID, recentDeliveries)
		if err != nil {
			return p, err
		}
		p.Targets = append(p.Targets, templates.NotifyTarget{Target: t, Where: t.Redacted().URL, Deliveries: ds})
	}
	return p, nil
}

// notifyAddTargetForm serves POST /settings/notifications/targets.
func (s *Server) notifyAddTargetForm(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		s.errorPage(w, r, errNotifyOff)
		return
	}
	form, err := readForm(w, r)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	t, err := targetFromForm(form)
	if err == nil {
		_, err = s.notify.AddTarget(r.Context(), t)
	}
	if err != nil {
		if status(err) == http.StatusInternalServerError {
			s.errorPage(w, r, err)
			return
		}
		s.notifySettingsWith(w, r, status(err), err.Error())
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
		s.errorPage(w, r, errNotifyOff)
		return
	}
	if err := s.notify.DeleteTarget(r.Context(), param(r, "id")); err != nil {
		s.errorPage(w, r, err)
		return
	}
	http.Redirect(w, r, "/settings/notifications", http.StatusSeeOther)
}
