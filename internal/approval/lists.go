package approval

import (
	"context"

	"github.com/plandash/plandash/internal/paging"
)

// Lister is a Store's paged lists, for the API: each answer is one bounded page and a cursor
// to the next, whatever the store holds.
type Lister interface {
	// PendingPage lists pending requests, oldest first (created, then id). A request decided
	// during a walk drops out of the pages not yet read; one created lands behind the walk.
	PendingPage(ctx context.Context, r paging.Request) ([]Request, paging.Cursor, error)
	// DecidedPage lists decided requests, most recently decided first (decided, then id,
	// both descending); a decision made during a walk lands ahead of it.
	DecidedPage(ctx context.Context, r paging.Request) ([]Request, paging.Cursor, error)
	// AuditPage lists the audit events f matches (its Limit is ignored), newest first.
	AuditPage(ctx context.Context, f AuditFilter, r paging.Request) ([]AuditEvent, paging.Cursor, error)
}

// PendingCursor is the position of a request in PendingPage.
func PendingCursor(r Request) paging.Cursor {
	return paging.Cursor{Key: r.Created.UnixNano(), ID: r.ID}
}

// DecidedCursor is the position of a request in DecidedPage.
func DecidedCursor(r Request) paging.Cursor {
	if r.Decision == nil {
		return paging.Cursor{ID: r.ID}
	}
	return paging.Cursor{Key: r.Decision.At.UnixNano(), ID: r.ID}
}

// AuditCursor is the position of an event in AuditPage.
func AuditCursor(e AuditEvent) paging.Cursor { return paging.Cursor{Key: e.ID} }

// PendingPage lists one page of pending requests, oldest first.
func (g *Gate) PendingPage(ctx context.Context, r paging.Request) ([]Request, paging.Cursor, error) {
	return g.store.PendingPage(ctx, r.Clamp())
}

// DecidedPage lists one page of decided requests, most recently decided first.
func (g *Gate) DecidedPage(ctx context.Context, r paging.Request) ([]Request, paging.Cursor, error) {
	return g.store.DecidedPage(ctx, r.Clamp())
}

// AuditPage lists one page of the audit trail, newest first.
func (g *Gate) AuditPage(ctx context.Context, f AuditFilter, r paging.Request) ([]AuditEvent, paging.Cursor, error) {
	return g.store.AuditPage(ctx, f, r.Clamp())
}
