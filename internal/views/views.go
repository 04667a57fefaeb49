// Package views is what each page shows, built from the services, and the live topics that
// redraw it. A page's handler (package web) asks it for the page's data and renders the page's
// template; the live layer asks it, through the topics it registers, for the fragments a change
// redraws: one definition of each page's content serves both, so a page and its live updates
// never disagree.
package views

import (
	"log/slog"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/waits"
)

// Deps are the services the pages are built from.
type Deps struct {
	Plans  *plans.Service
	Gate   *approval.Gate
	Shared *sharedplans.Service
	Perms  *permissions.Inbox
	Waits  *waits.Service
	Notify *notify.Notifier // nil: no notification settings to show
	Live   *live.Live
	Files  *files.Roots // file plans show content under these; nil shows none
	Log    *slog.Logger
}

// Pages builds what each page shows and keeps its live topics drawn.
type Pages struct {
	log    *slog.Logger
	plans  *plans.Service
	gate   *approval.Gate
	shared *sharedplans.Service
	perms  *permissions.Inbox
	waits  *waits.Service
	notify *notify.Notifier
	live   *live.Live
	files  *files.Roots
	dags   dagCache
}

// New builds the pages over the services, registers every live topic and listens to the
// services' changes. It panics when a kind of change is shown by no topic: a change of it would
// reach no page.
func New(d Deps) *Pages {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	p := &Pages{log: d.Log, plans: d.Plans, gate: d.Gate, shared: d.Shared, perms: d.Perms, waits: d.Waits,
		notify: d.Notify, live: d.Live, files: d.Files}
	p.registerTopics()
	d.Plans.OnCommit(p.sessionsCommitted)
	d.Gate.OnChange(p.gateChanged)
	d.Shared.OnChange(p.sharedChanged)
	d.Perms.OnChange(p.permissionsChanged)
	d.Waits.OnChange(p.waitsChanged)
	return p
}

// now is the pages' clock.
func (p *Pages) now() time.Time { return p.plans.Now() }
