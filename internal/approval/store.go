package approval

import (
	"context"
	"time"
)

// Store persists requests, rules and the audit trail. Each write is one transaction with its
// audit events, so the trail never disagrees with the state. The Gate serialises writers; the
// conditional Decide is what makes a decision exactly-once even beyond one Gate.
// internal/approval/approvaltest states this contract as tests that every implementation
// passes. The store does not own its lifetime: whoever opened the database closes it.
type Store interface {
	// Create stores r and events unless a request with r.ID exists; it then returns the stored
	// request and false.
	Create(ctx context.Context, r Request, events []AuditEvent) (Request, bool, error)
	// Get returns the request, or an error of kind NotFound.
	Get(ctx context.Context, id string) (Request, error)
	// Decide stores r, now decided or handed over (Elsewhere), and events only if the stored
	// request is still pending, or still Elsewhere when r settles it (r.Settles()); it reports
	// whether it did.
	Decide(ctx context.Context, r Request, events []AuditEvent) (bool, error)
	// Pending lists pending requests, oldest first; limit <= 0 means all.
	Pending(ctx context.Context, limit int) ([]Request, error)
	// PendingSummaries lists pending requests as lists show them, oldest first.
	PendingSummaries(ctx context.Context) ([]Summary, error)
	// Elsewhere lists the requests in status Elsewhere, oldest first.
	Elsewhere(ctx context.Context) ([]Request, error)
	// Decided lists decided requests, most recently decided first.
	Decided(ctx context.Context, limit int) ([]Request, error)
	// CountPending counts pending requests.
	CountPending(ctx context.Context) (int, error)
	// Due lists pending requests whose deadline is at or before now.
	Due(ctx context.Context, now time.Time, limit int) ([]Request, error)
	// LatestInSession is the session's newest request created at or before t; false when
	// it has none.
	LatestInSession(ctx context.Context, sessionID string, t time.Time) (Request, bool, error)
	// NextDeadline is the earliest deadline of a pending request; false when none is pending.
	NextDeadline(ctx context.Context) (time.Time, bool, error)

	// PutRule stores a new or changed rule with its audit event.
	PutRule(ctx context.Context, r Rule, ev AuditEvent) error
	// Rule returns a rule, or an error of kind NotFound.
	Rule(ctx context.Context, id string) (Rule, error)
	// Rules lists rules, newest first; revoked ones only when asked.
	Rules(ctx context.Context, withRevoked bool) ([]Rule, error)

	// Audit lists audit events, newest first.
	Audit(ctx context.Context, f AuditFilter) ([]AuditEvent, error)
	// Seq is the largest change number stored.
	Seq(ctx context.Context) (uint64, error)

	Lister // the paged lists (lists.go)
}

// Sequencer is implemented by a Store that gates in several processes share (PostgreSQL, one
// gate per instance): it hands out change numbers from the database, so no two instances give
// two changes the same Seq. A gate over a store without it is the store's only writer and counts
// on from the store's Seq.
type Sequencer interface {
	// NextSeq returns a change number never returned before by any handle on the same
	// database, larger than every number it returned before to this one.
	NextSeq(ctx context.Context) (uint64, error)
}
