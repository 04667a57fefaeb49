package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/errs"
)

// proxyState is where `plandash acp --approvals=both|dashboard` meets the dashboard: the
// permission requests proxies offered, the answers waiting for their proxy to fetch them, and
// the recently resolved ones with who resolved them. It is in memory: a proxy offers its open
// requests again when it reconnects after a restart.
type proxyState struct {
	permMu   sync.Mutex
	perms    map[permKey]*ProxyPermission
	answers  map[string][]ProxyAnswer // by stream, not yet fetched
	wake     map[string]chan struct{} // by stream: closed when an answer is queued
	resolved []permKey                // oldest first, bounded
}

type permKey struct{ stream, id string }

// ProxyPermission is an agent's permission request that a proxy offered to the dashboard.
type ProxyPermission struct {
	Stream    string          `json:"stream"`
	ID        json.RawMessage `json:"id"`
	SessionID string          `json:"sessionId"`
	Params    json.RawMessage `json:"params"`
	InIDE     bool            `json:"inIde"`
	Offered   time.Time       `json:"offered"`
	Answered  bool            `json:"answered,omitempty"` // on its way to the proxy
	// Set once the request ended: who ended it (ide, dashboard, agent, proxy) and how.
	ResolvedBy string                 `json:"resolvedBy,omitempty"`
	Outcome    *acp.PermissionOutcome `json:"outcome,omitempty"`
	Resolved   time.Time              `json:"resolved,omitzero"`
}

// ProxyAnswer is the dashboard's answer to one request, as its proxy fetches it.
type ProxyAnswer struct {
	ID      json.RawMessage `json:"id"`
	Outcome outcomeJSON     `json:"outcome"`
	By      string          `json:"by,omitempty"`
}

type outcomeJSON struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
}

// maxResolved is how many ended requests are kept to show who resolved them.
const maxResolved = 200

func (s *Server) proxyAPI(r chi.Router) {
	r.Get("/api/v1/proxy/permissions", s.apiProxyPermissions)
	r.Post("/api/v1/proxy/permissions", s.apiProxyOffer)
	r.Post("/api/v1/proxy/permissions/resolved", s.apiProxyResolved)
	r.Post("/api/v1/proxy/permissions/answer", s.apiProxyAnswer)
	r.Get("/api/v1/proxy/answers", s.apiProxyAnswers)
}

// ProxyPermissions lists the offered requests, open ones first, oldest first.
func (s *Server) ProxyPermissions() []ProxyPermission {
	s.permMu.Lock()
	defer s.permMu.Unlock()
	out := make([]ProxyPermission, 0, len(s.perms))
	for _, p := range s.perms {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i].ResolvedBy == "") != (out[j].ResolvedBy == "") {
			return out[i].ResolvedBy == ""
		}
		return out[i].Offered.Before(out[j].Offered)
	})
	return out
}

// AnswerProxyPermission queues the dashboard's answer for the proxy that offered the request.
// The first answer wins: a request already answered or ended is a conflict.
func (s *Server) AnswerProxyPermission(stream string, id json.RawMessage, o acp.PermissionOutcome, by string) error {
	err := s.answerProxyPermission(stream, id, o, by)
	if err == nil {
		s.publishAcpPermissions("")
	}
	return err
}

func (s *Server) answerProxyPermission(stream string, id json.RawMessage, o acp.PermissionOutcome, by string) error {
	key := permKey{stream, string(compactJSON(id))}
	s.permMu.Lock()
	defer s.permMu.Unlock()
	p := s.perms[key]
	switch {
	case p == nil:
		return errs.Errorf(errs.NotFound, "no permission request %s on stream %q", id, stream)
	case p.ResolvedBy != "":
		return errs.Errorf(errs.Conflict, "the request was already resolved by the %s", p.ResolvedBy)
	case p.Answered:
		return errs.Errorf(errs.Conflict, "the request was already answered")
	}
	if err := checkOffered(p.Params, o); err != nil {
		return err
	}
	p.Answered = true
	if s.answers == nil {
		s.answers = map[string][]ProxyAnswer{}
	}
	s.answers[stream] = append(s.answers[stream], ProxyAnswer{ID: p.ID, Outcome: outcomeJSON(o), By: by})
	if ch := s.wake[stream]; ch != nil {
		close(ch)
		delete(s.wake, stream)
	}
	return nil
}

func checkOffered(params json.RawMessage, o acp.PermissionOutcome) error {
	switch o.Outcome {
	case "cancelled":
		return nil
	case "selected":
		p, err := acp.DecodeRequestPermissionParams(params)
		if err != nil {
			return errs.Errorf(errs.Invalid, "the request cannot be answered: %v", err)
		}
		for _, opt := range p.Options {
			if opt.OptionID == o.OptionID {
				return nil
			}
		}
		return errs.Errorf(errs.Invalid, "option %q was not offered", o.OptionID)
	}
	return errs.Errorf(errs.Invalid, `outcome must be "selected" or "cancelled", not %q`, o.Outcome)
}

func compactJSON(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

func readJSONBody(w http.ResponseWriter, r *http.Request, v any) error {
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20)).Decode(v); err != nil {
		return errs.Errorf(errs.Invalid, "the body is not the JSON expected: %v", err)
	}
	return nil
}

// apiProxyOffer is a proxy offering a request (again, after a reconnect: the answer state is
// reset, so an answer lost on the way can be given again).
func (s *Server) apiProxyOffer(w http.ResponseWriter, r *http.Request) {
	var p ProxyPermission
	if err := readJSONBody(w, r, &p); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if p.Stream == "" || len(p.ID) == 0 {
		writeProblem(w, r, s.log, errs.Errorf(errs.Invalid, "stream and id are required"))
		return
	}
	p.ID = compactJSON(p.ID)
	p.Offered, p.Answered, p.ResolvedBy, p.Outcome = time.Now(), false, "", nil
	s.permMu.Lock()
	if s.perms == nil {
		s.perms = map[permKey]*ProxyPermission{}
	}
	s.perms[permKey{p.Stream, string(p.ID)}] = &p
	s.permMu.Unlock()
	s.publishAcpPermissions(permissionTitle(p.Params))
	w.WriteHeader(http.StatusNoContent)
}

// apiProxyResolved is a proxy saying a request ended.
func (s *Server) apiProxyResolved(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Stream  string                 `json:"stream"`
		ID      json.RawMessage        `json:"id"`
		By      string                 `json:"by"`
		Outcome *acp.PermissionOutcome `json:"outcome"`
	}
	if err := readJSONBody(w, r, &body); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	key := permKey{body.Stream, string(compactJSON(body.ID))}
	s.permMu.Lock()
	if p := s.perms[key]; p != nil && p.ResolvedBy == "" {
		p.ResolvedBy, p.Outcome, p.Resolved, p.Answered = body.By, body.Outcome, time.Now(), false
		s.resolved = append(s.resolved, key)
		for len(s.resolved) > maxResolved {
			delete(s.perms, s.resolved[0])
			s.resolved = s.resolved[1:]
		}
	}
	s.permMu.Unlock()
	s.publishAcpPermissions("")
	w.WriteHeader(http.StatusNoContent)
}

// apiProxyAnswer is the dashboard answering: {"stream":…,"id":…,"outcome":{"outcome":"selected","optionId":…}}.
func (s *Server) apiProxyAnswer(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Stream  string          `json:"stream"`
		ID      json.RawMessage `json:"id"`
		Outcome outcomeJSON     `json:"outcome"`
	}
	if err := readJSONBody(w, r, &body); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	if err := s.AnswerProxyPermission(body.Stream, body.ID, acp.PermissionOutcome(body.Outcome), s.decider(r)); err != nil {
		writeProblem(w, r, s.log, err)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

func (s *Server) apiProxyPermissions(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.ProxyPermissions())
}

// apiProxyAnswers is a proxy's long poll: the answers for its stream, as soon as there are any,
// or [] after ?wait (default 20 s, at most 60 s).
func (s *Server) apiProxyAnswers(w http.ResponseWriter, r *http.Request) {
	stream := r.URL.Query().Get("stream")
	wait := 20 * time.Second
	if v := r.URL.Query().Get("wait"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			writeProblem(w, r, s.log, errs.Errorf(errs.Invalid, "wait must be a duration such as 20s"))
			return
		}
		wait = min(d, time.Minute)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		s.permMu.Lock()
		if got := s.answers[stream]; len(got) > 0 {
			delete(s.answers, stream)
			s.permMu.Unlock()
			writeJSON(w, http.StatusOK, got)
			return
		}
		if s.wake == nil {
			s.wake = map[string]chan struct{}{}
		}
		ch := s.wake[stream]
		if ch == nil {
			ch = make(chan struct{})
			s.wake[stream] = ch
		}
		s.permMu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			writeJSON(w, http.StatusOK, []ProxyAnswer{})
			return
		case <-r.Context().Done():
			return
		}
	}
}

// permissionTitle names a permission request for a notification: its tool call's title.
func permissionTitle(params json.RawMessage) string {
	p, err := acp.DecodeRequestPermissionParams(params)
	if err != nil || p.ToolCall.Title == nil {
		return "An agent asks for permission"
	}
	return *p.ToolCall.Title
}
