package notify

import (
	"context"
	"time"
)

// Event is what happened to a wait that a delivery announces.
type Event string

// The events a delivery announces.
const (
	Began Event = "began"
	Ended Event = "ended"
)

// Status is where a delivery stands.
type Status string

// Delivery statuses.
const (
	Pending Status = "pending" // due (now or later), or leased to a sender
	Sent    Status = "sent"
	Failed  Status = "failed"  // given up: the last error says why
	Skipped Status = "skipped" // no longer worth sending (the wait ended during the delay)
)

// Delivery is one row of the outbox: one event of one wait for one target. Key is its
// idempotency key, (target, wait, event): enqueueing the same key twice stores one row, and a
// webhook receives the key so it can drop a repeat sent after a crash.
type Delivery struct {
	ID       int64
	Key      string
	Target   string
	Event    Event
	Wait     Wait // as it was when the event happened
	Due      time.Time
	Attempts int
	Status   Status
	Error    string // the last attempt's error
	Created  time.Time
	Done     time.Time // when it was sent, failed for good or skipped
}

// DeliveryKey is the idempotency key of an event of a wait for a target.
func DeliveryKey(target, waitID string, ev Event) string {
	return target + "|" + waitID + "|" + string(ev)
}

// Link is a capability for one answer to one wait: the raw token is only ever in the message
// that carries it; the store keeps its hash.
type Link struct {
	Hash    string
	WaitID  string
	Action  string
	Label   string
	Channel string // where the link was sent: "ntfy", "Slack", "Web Push"
	Title   string // what the wait asked, for the confirmation page
	URL     string // the wait's own page
	Created time.Time
	Expires time.Time
	Used    time.Time // zero until used
}

// Store keeps the outbox, the targets, the links and the push keys. Its implementations
// (SQLite and PostgreSQL) pass the same contract tests (notifytest).
type Store interface {
	// Enqueue stores deliveries whose key is not stored yet and reports how many were new.
	Enqueue(ctx context.Context, ds []Delivery) (int, error)
	// Claim leases up to limit pending deliveries due at now to owner until now+lease; a
	// delivery leased to someone else is not claimed until its lease ends. Attempts counts
	// the claim.
	Claim(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]Delivery, error)
	// Finish records the outcome of a claimed delivery (status, error, done; a retry is
	// Pending with a later Due) and ends owner's lease. A delivery whose lease owner lost is
	// left alone: false.
	Finish(ctx context.Context, owner string, d Delivery) (bool, error)
	// Skip marks the wait's pending, unleased deliveries of event as skipped, and returns the
	// targets whose delivery it skipped.
	Skip(ctx context.Context, waitID string, ev Event, now time.Time, why string) ([]string, error)
	// Unended lists, for up to limit waits, the sent "began" deliveries that no "ended"
	// delivery of the same target and wait followed: what a restart must still clear.
	Unended(ctx context.Context, limit int) ([]Delivery, error)
	// Recent is a target's newest deliveries, newest first.
	Recent(ctx context.Context, target string, limit int) ([]Delivery, error)

	// PutTarget stores a target, replacing one with its ID.
	PutTarget(ctx context.Context, t Target) error
	// DeleteTarget removes a target; a missing one is errs.NotFound.
	DeleteTarget(ctx context.Context, id string) error
	// Targets lists the stored targets, oldest first.
	Targets(ctx context.Context) ([]Target, error)

	// AddLink stores a link.
	AddLink(ctx context.Context, l Link) error
	// Link reads a link by its hash; an unknown one is errs.NotFound.
	Link(ctx context.Context, hash string) (Link, error)
	// UseLink marks an unused link used at now: false when it was already used.
	UseLink(ctx context.Context, hash string, now time.Time) (bool, error)
	// UnuseLink gives a link back after an answer that failed for a reason of plandash's own.
	UnuseLink(ctx context.Context, hash string) error

	// Prune deletes deliveries finished before before and links that expired before it, and
	// reports how many rows went.
	Prune(ctx context.Context, before time.Time) (int, error)

	// Secret returns the value stored under name, storing make's first when there is none;
	// several instances starting at once agree on one.
	Secret(ctx context.Context, name string, make func() ([]byte, error)) ([]byte, error)
}
