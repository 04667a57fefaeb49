package plans

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrorKind classifies domain errors so the web layer can map them in one place.
type ErrorKind int

// Error kinds.
const (
	Internal ErrorKind = iota
	Invalid
	NotFound
	Conflict
	Unauthorized
	TooLarge
)

// Error is a domain error with a kind and a message fit for users.
type Error struct {
	Kind ErrorKind
	Msg  string
	Err  error // the cause, for logs
}

func (e *Error) Error() string {
	if e.Err != nil && e.Msg == "" {
		return e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf makes a domain error of the given kind.
func Errorf(kind ErrorKind, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// KindOf returns the kind of err, Internal when it carries none.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// ErrNotFound is returned by stores for a missing session or plan.
var ErrNotFound = &Error{Kind: NotFound, Msg: "not found"}

// Changes is what one applied batch writes, committed atomically.
type Changes struct {
	Sessions  []*Session  // current state of each touched session
	Plans     []*Plan     // current state of each touched plan
	Revisions []*Plan     // every new revision, in order (several per plan when a batch updates it often)
	ToolCalls []*ToolCall // current state of each touched tool call
	Activity  []*Activity // new activity, or merged into the session's latest one when ID is set
}

// Empty reports whether there is nothing to write.
func (c *Changes) Empty() bool {
	return len(c.Sessions)+len(c.Plans)+len(c.Revisions)+len(c.ToolCalls)+len(c.Activity) == 0
}

// Store persists sessions and plans. Commit is the only writer; the Service serialises calls to
// it, so implementations need not guard against concurrent Commits reading stale state.
// internal/plans/planstest states this contract as tests that every implementation passes.
// Lookups of one thing that is not there fail with an error of kind NotFound; lists of nothing
// are empty. The store does not own its lifetime: whoever opened the database closes it.
type Store interface {
	// Commit writes c in one transaction and assigns change sequence numbers: every session,
	// plan and revision in c gets the batch's Seq, greater than any before it, and new activity
	// gets its ID (activity with an ID replaces that one). It returns only once the data is
	// durable.
	Commit(ctx context.Context, c *Changes) error

	Session(ctx context.Context, id string) (Session, error)
	Plan(ctx context.Context, sessionID, planID string) (Plan, error)
	ToolCall(ctx context.Context, sessionID, id string) (ToolCall, error)
	LastActivity(ctx context.Context, sessionID string) (Activity, error)

	// Overview lists sessions active at now (seen within idle, not ended) that have at least one
	// plan that is not removed, most recently active first, and the store's Seq at that moment.
	Overview(ctx context.Context, now time.Time, idle time.Duration) ([]SessionPlans, uint64, error)
	// Sessions lists recent sessions, active or not, most recent first.
	Sessions(ctx context.Context, limit int) ([]Session, error)
	// SessionPlans lists a session's plans, removed ones too, newest first.
	SessionPlans(ctx context.Context, sessionID string) ([]Plan, error)
	ToolCalls(ctx context.Context, sessionID string) ([]ToolCall, error)
	Activity(ctx context.Context, sessionID string, limit int) ([]Activity, error)
	// History lists every revision of a plan, oldest first.
	History(ctx context.Context, sessionID, planID string) ([]Revision, error)
	// ChangedSince lists the sessions changed after seq and the store's current Seq.
	ChangedSince(ctx context.Context, seq uint64) ([]string, uint64, error)
	// Seq is the newest change sequence number.
	Seq() uint64
}
