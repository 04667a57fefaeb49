package app

import (
	"context"
	"log/slog"
	"slices"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/changes"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/metrics"
	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/store/postgres"
	"github.com/plandash/plandash/internal/waits"
)

// Several instances on one PostgreSQL database: each commit notifies its changes inside its
// transaction, and every instance's listener turns the other instances' notes into what a local
// commit would have caused. Local commits are announced by the services' own listeners, once;
// the listener skips this instance's notes.

// remote applies another instance's change here.
type remote struct {
	live  *live.Live
	gate  *approval.Gate
	perms *permissions.Inbox
	asked *waits.Asked
	log   *slog.Logger
	notes *metrics.CounterVec // by kind and how the note arrived
}

// note is the listener's function: it shows the change on this instance's pages and wakes what
// waits here for it.
func (r remote) note(ctx context.Context, n postgres.Note) {
	// A note read back in a catch-up has no instance; a heard one names its sender.
	via := "notify"
	if n.Instance == "" {
		via = "catchup"
	}
	kind := n.Kind
	if !slices.Contains(changes.Kinds(), kind) {
		kind = "other" // a label from the wire stays in a bounded set
	}
	r.notes.With(kind, via).Inc()
	var err error
	switch n.Kind {
	case changes.Session, changes.Shared:
		// Note kinds and parts are the live layer's change kinds and session parts.
		r.live.Announce(live.Change{Kind: n.Kind, ID: n.ID, Part: n.Part})
	case changes.Approval:
		// The gate reads the request back, wakes its waiters if it was decided, and tells the
		// web side's listener, which announces it as it does a local change.
		err = r.gate.Notify(ctx, n.ID)
	case changes.Rules:
		err = r.gate.NotifyRule(ctx, n.ID)
	case changes.Permissions:
		r.perms.Notify(n.ID)
	case changes.Waits:
		// A question answered there wakes the hook waiting here; the list moves.
		r.asked.Notify(n.ID)
	}
	if err != nil && ctx.Err() == nil {
		r.log.Error("applying another instance's change", "kind", n.Kind, "id", n.ID, "err", err)
	}
}

// acting wraps a gate listener that acts on changes (rather than shows them), so it acts only on
// this instance's: the instance that made a change acts on it once.
func acting(fn func(approval.Change)) func(approval.Change) {
	return func(c approval.Change) {
		if !c.Remote {
			fn(c)
		}
	}
}
