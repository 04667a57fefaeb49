package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plandash/plandash/internal/agentid"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
)

// maxFilterText bounds the overview's search and filter values, in runes.
const maxFilterText = 200

// overview serves GET /: a page of sessions, filtered by its query.
func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	f, err := parseOverviewFilter(r.URL.Query())
	cookie := ""
	if c, err := r.Cookie(templates.DensityCookie); err == nil {
		cookie = c.Value
	}
	f.Compact = templates.CompactDensity(r.URL.Query().Get("density"), cookie)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	o, err := s.views.Overview(r.Context(), f)
	if err != nil {
		writePageError(w, r, s.log, err)
		return
	}
	o.Ingest = "http://" + r.Host + "/api/v1/ingest"
	o.Connect = s.connect
	o.Shared, o.SharedTotal = s.views.SharedStrip(r.Context())
	writeHTML(w, r, s.log, templates.OverviewPage(o))
}

// parseOverviewFilter reads the overview's query; a value out of bounds is refused rather than
// cut, so a shared link never silently shows something else.
func parseOverviewFilter(q url.Values) (templates.OverviewFilter, error) {
	f := templates.OverviewFilter{Agent: q.Get("agent"), Host: q.Get("host"), Dir: q.Get("dir"), State: q.Get("state"),
		Q: strings.TrimSpace(q.Get("q")), Compact: q.Get("density") == "compact", Before: q.Get("before")}
	for name, v := range map[string]string{"agent": f.Agent, "host": f.Host, "dir": f.Dir, "q": f.Q} {
		if utf8.RuneCountInString(v) > maxFilterText || !utf8.ValidString(v) {
			return f, errs.Errorf(errs.Invalid, "the %s filter is longer than %d characters", name, maxFilterText)
		}
	}
	// An agent is chosen by canonical id: ?agent=Claude+Code and ?agent=claude-agent-acp are
	// the menu's claude-code, and the store matches every spelling of it.
	f.Agent = agentid.Of(f.Agent).ID
	if f.State != "" && !slices.Contains(templates.OverviewStates, f.State) {
		return f, errs.Errorf(errs.Invalid, "state must be one of %s", strings.Join(templates.OverviewStates, ", "))
	}
	if _, err := plans.ParseSessionCursor(f.Before); err != nil {
		return f, err
	}
	return f, nil
}
