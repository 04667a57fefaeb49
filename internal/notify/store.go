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
	// Remote is what the target calls the message a sent "began" delivery posted (Discord's
	// message id, the ntfy sequence id plandash chose): Finish records it, so the wait's end
	// can update or clear that message. Not read back with the delivery.
	Remote string
	// Links are the answer links the delivery's message carries, stored with the delivery in
	// the same transaction when it is new (none when its key was stored already). Not read back.
	Links []Link

	buttons   []button // the raw links of Links, for the message; in memory only
	announced int      // for an end on a chat target: how many waits its message announced
}

// DeliveryKey is the idempotency key of an event of a wait for a target.
func DeliveryKey(target, waitID string, ev Event) string {
	return target + "|" + waitID + "|" + string(ev)
}

// Announcement is the message that announced a wait on a target, as Remotes reads it.
type Announcement struct {
	Remote  string // what the target calls the message; "" while Pending
	Pending bool   // no message yet, and the announcement is pending: its message may yet exist
	Waits   int    // how many waits the message announced
	Open    int    // how many of the others have no "ended" delivery stored yet
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
	// EnqueueClaimed stores deliveries as Enqueue does, in one transaction, and leases those
	// it stored that are due at now to owner until now+lease with one attempt counted, as
	// Claim would: they are returned, with their IDs, for the caller to send at once without
	// a second write. One whose key was stored already (another instance's, or a restart's)
	// is not returned, so one instance sends it.
	//
	// It returns with the transaction still open and its keys taken: until commit is called
	// (once, and soon: on SQLite the outbox's writer waits for it), another transaction
	// storing one of those keys waits for this one, then stores nothing if it commits. The
	// caller may send what was returned meanwhile (see Notifier.watch). On an error nothing
	// was stored and commit is nil.
	EnqueueClaimed(ctx context.Context, owner string, now time.Time, lease time.Duration, ds []Delivery) (claimed []Delivery, commit func() error, err error)
	// EndClaimed is Skip and then EnqueueClaimed in one transaction, for waits that ended: it
	// marks the pending, unleased deliveries of event ev of waitIDs as skipped, calls then with
	// the keys it skipped, and stores and leases what then returns as EnqueueClaimed does.
	// then is called once, within the transaction: it must be quick and must not use the store.
	EndClaimed(ctx context.Context, owner string, now time.Time, lease time.Duration, waitIDs []string, ev Event, why string,
		then func(skipped []string) []Delivery) ([]Delivery, error)
	// Claim leases up to limit pending deliveries due at now to owner until now+lease; a
	// delivery leased to someone else is not claimed until its lease ends. Attempts counts
	// the claim.
	Claim(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]Delivery, error)
	// Finish records the outcome of a claimed delivery (status, error, done; a retry is
	// Pending with a later Due) and ends owner's lease; a sent one with a Remote records
	// which message announced its wait on its target, in the same transaction. A delivery
	// whose lease owner lost is left alone: false.
	Finish(ctx context.Context, owner string, d Delivery) (bool, error)
	// FinishAll finishes each of ds as Finish does, in one transaction, and reports how many
	// were still owner's.
	FinishAll(ctx context.Context, owner string, ds []Delivery) (int, error)
	// Remote is the message that announced waitID on target: what the target calls it, how
	// many waits it announced, and how many of the others have no "ended" delivery stored yet
	// (still open: the last to end clears the message). None is errs.NotFound, or
	// errs.Conflict while the wait's announcement there is still pending (being sent, or to
	// be tried again): its message may yet exist.
	Remote(ctx context.Context, target, waitID string) (remote string, announced, open int, err error)
	// Remotes is Remote for many waits on one target, in two statements whatever their number
	// (the end of a burst asks for hundreds): each wait's message and whether its announcement
	// is pending are read in one snapshot, as Remote reads them. A wait with neither is not in
	// the map (Remote's errs.NotFound); one whose announcement is pending and that has no
	// message yet has Pending set (Remote's errs.Conflict).
	Remotes(ctx context.Context, target string, waitIDs []string) (map[string]Announcement, error)
	// Skip marks the pending, unleased deliveries of event of the waits as skipped, and
	// returns the keys of those it skipped.
	Skip(ctx context.Context, waitIDs []string, ev Event, now time.Time, why string) ([]string, error)
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

	// Prune deletes deliveries finished before before, links that expired before it and
	// messages' remote ids recorded before it, and reports how many rows went.
	Prune(ctx context.Context, before time.Time) (int, error)

	// Secret returns the value stored under name, storing make's first when there is none;
	// several instances starting at once agree on one.
	Secret(ctx context.Context, name string, make func() ([]byte, error)) ([]byte, error)
}
