package approval

import (
	"context"

	"github.com/plandash/plandash/internal/page"
)

// Lister is a Store's paged lists, for the API: each answer is one bounded page and a cursor
// to the next, whatever the store holds.
type Lister interface {
	// PendingPage lists pending requests, oldest first (created, then id). A request decided
	// during a walk drops out of the pages not yet read; one created lands behind the walk.
	PendingPage(ctx context.Context, r page.Request) ([]Request, page.Cursor, error)
	// DecidedPage lists decided requests, most recently decided first (decided, then id,
	// both descending); a decision made during a walk lands ahead of it.
	DecidedPage(ctx context.Context, r page.Request) ([]Request, page.Cursor, error)
	// AuditPage lists the audit events f matches (its Limit is ignored), newest first.
	AuditPage(ctx context.Context, f AuditFilter, r page.Request) ([]AuditEvent, page.Cursor, error)
}

// PendingCursor is the position of a request in PendingPage.
func PendingCursor(r Request) page.Cursor { return page.Cursor{Key: r.Created.UnixNano(), ID: r.ID} }

// DecidedCursor is the position of a request in DecidedPage.
func DecidedCursor(r Request) page.Cursor {
	if r.Decision == nil {
		return page.Cursor{ID: r.ID}
	}
	return page.Cursor{Key: r.Decision.At.UnixNano(), ID: r.ID}
}

// AuditCursor is the position of an event in AuditPage.
func AuditCursor(e AuditEvent) page.Cursor { return page.Cursor{Key: e.ID} }

// PendingPage lists one page of pending requests, oldest first.
func (g *Gate) PendingPage(ctx context.Context, r page.Request) ([]Request, page.Cursor, error) {
	return g.store.PendingPage(ctx, r.Clamp())
}

// DecidedPage lists one page of decided requests, most recently decided first.
func (g *Gate) DecidedPage(ctx context.Context, r page.Request) ([]Request, page.Cursor, error) {
	return g.store.DecidedPage(ctx, r.Clamp())
}

// AuditPage lists one page of the audit trail, newest first.
func (g *Gate) AuditPage(ctx context.Context, f AuditFilter, r page.Request) ([]AuditEvent, page.Cursor, error) {
	return g.store.AuditPage(ctx, f, r.Clamp())
}
