package web

import (
	"net/http"
	"strings"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/notify"
)

// maxTargetBody bounds a target or subscription in JSON.
const maxTargetBody = 16 << 10

// apiNotifyTargets serves GET /api/v1/notify/targets (admin: secrets included).
func (s *Server) apiNotifyTargets(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writeProblem(w, r, s.log, errNotifyOff)
		return
	}
	ts, err := s.notify.Targets(r.Context())
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if ts == nil {
		ts = []notify.Target{}
	}
	writeJSON(w, http.StatusOK, ts)
}

// apiNotifyAddTarget serves POST /api/v1/notify/targets.
func (s *Server) apiNotifyAddTarget(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writeProblem(w, r, s.log, errNotifyOff)
		return
	}
	var t notify.Target
	if err := decodeJSON(w, r, maxTargetBody, true, &t); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if t.Kind == notify.WebPush {
		writeProblem(w, r, s.log, errs.New(errs.Invalid, "target kind: browsers subscribe with POST /api/v1/notify/push"))
		return
	}
	t, err := s.notify.AddTarget(r.Context(), t)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusCreated, t)
}

// apiNotifyDeleteTarget serves DELETE /api/v1/notify/targets/{id}.
func (s *Server) apiNotifyDeleteTarget(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writeProblem(w, r, s.log, errNotifyOff)
		return
	}
	if err := s.notify.DeleteTarget(r.Context(), param(r, "id")); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// apiNotifyDeliveries serves GET /api/v1/notify/targets/{id}/deliveries: the newest 50.
func (s *Server) apiNotifyDeliveries(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writeProblem(w, r, s.log, errNotifyOff)
		return
	}
	ds, err := s.notify.Deliveries(r.Context(), param(r, "id"), 50)
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	type delivery struct {
		Key      string        `json:"key"`
		Event    notify.Event  `json:"event"`
		WaitID   string        `json:"waitId"`
		Status   notify.Status `json:"status"`
		Attempts int           `json:"attempts"`
		Error    string        `json:"error,omitempty"`
		Created  string        `json:"created"`
	}
	out := []delivery{}
	for _, d := range ds {
		out = append(out, delivery{Key: d.Key, Event: d.Event, WaitID: d.Wait.ID, Status: d.Status, Attempts: d.Attempts, Error: d.Error,
			Created: d.Created.UTC().Format("2006-01-02T15:04:05.000Z07:00")})
	}
	writeJSON(w, http.StatusOK, out)
}

// apiNotifyVAPID serves GET /api/v1/notify/vapid: the key browsers subscribe with.
func (s *Server) apiNotifyVAPID(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writeProblem(w, r, s.log, errNotifyOff)
		return
	}
	v, err := s.notify.VAPID(r.Context())
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"publicKey": v.PublicKey()})
}

// pushSubscription is a browser's PushSubscription.toJSON().
type pushSubscription struct {
	Endpoint       string          `json:"endpoint"`
	ExpirationTime *int64          `json:"expirationTime"`
	Keys           notify.PushKeys `json:"keys"`
}

// apiNotifySubscribe serves POST /api/v1/notify/push: this browser's subscription becomes a
// Web Push target. Only an admin (the page's cookie) gets here, so the endpoint plandash will
// post to is one an admin's browser chose.
func (s *Server) apiNotifySubscribe(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		writeProblem(w, r, s.log, errNotifyOff)
		return
	}
	var sub pushSubscription
	if err := decodeJSON(w, r, maxTargetBody, false, &sub); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if !strings.HasPrefix(sub.Endpoint, "https://") && !loopbackURL(sub.Endpoint) {
		writeProblem(w, r, s.log, errs.New(errs.Invalid, "endpoint: a push service's URL is https"))
		return
	}
	name := "browser"
	if ua := r.UserAgent(); ua != "" {
		name = "browser: " + clipUA(ua)
	}
	keys := sub.Keys
	t, err := s.notify.AddTarget(r.Context(), notify.Target{Kind: notify.WebPush, Name: name, URL: sub.Endpoint, Push: &keys})
	if err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusCreated, t.Redacted())
}

// loopbackURL allows test push services on this machine.
func loopbackURL(u string) bool {
	return strings.HasPrefix(u, "http://127.0.0.1:") || strings.HasPrefix(u, "http://localhost:") || strings.HasPrefix(u, "http://[::1]:")
}

func clipUA(ua string) string {
	if len(ua) > 60 {
		return ua[:60]
	}
	return ua
}
