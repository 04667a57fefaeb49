package plans

import (
	"context"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// ErrNotFound is returned by stores for a missing session or plan.
var ErrNotFound = errs.New(errs.NotFound, "not found")

// Changes is what one applied batch writes, committed atomically.
type Changes struct {
	Sessions  []*Session  // current state of each touched session
	Plans     []*Plan     // current state of each touched plan
	Revisions []*Plan     // every new revision, in order (several per plan when a batch updates it often)
	ToolCalls []*ToolCall // current state of each touched tool call
	Activity  []*Activity // new activity, or merged into the session's latest one when ID is set
	// NewToolCalls are the tool calls among ToolCalls that did not exist before: only they change
	// a session's count of tool calls, which is costly to recount on a long session.
	NewToolCalls []PlanKey
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
	// WentIdle lists the sessions with at least one plan not removed, not ended, last seen after
	// after and at or before upTo: between two sweeps whose idleness cutoffs these are, the ones
	// that went idle. Its cost is theirs, however many sessions are active.
	WentIdle(ctx context.Context, after, upTo time.Time) ([]string, error)
	// ListSessions is one page of the sessions that have at least one plan not removed and pass
	// f, each with those plans (most recently updated first): up to limit sessions after cursor
	// in the list's order (see SessionCursor), and whether more follow. Its cost is the page's,
	// however many sessions are stored.
	ListSessions(ctx context.Context, f SessionFilter, after SessionCursor, limit int) ([]SessionPlans, bool, error)
	// Outline is session id with the tally of its plans that are not removed, the newest n of
	// them named (see Outline), and those of the n that whole picks decoded: no other plan's body
	// is decoded. A session that does not exist is an error of kind NotFound.
	Outline(ctx context.Context, id string, n int, whole func(PlanRef) bool) (Outline, error)
	// RecentPlan is plan planID of session sessionID if it is not removed and among the n most
	// recently updated of the session's plans that are not removed (ties by id, as Outline
	// orders them): a card a group of n shows. False when it is not, or does not exist.
	RecentPlan(ctx context.Context, sessionID, planID string, n int) (Plan, bool, error)
	// Sessions lists recent sessions, active or not, most recent first.
	Sessions(ctx context.Context, limit int) ([]Session, error)
	// SessionPlans lists a session's plans, removed ones too, newest first.
	SessionPlans(ctx context.Context, sessionID string) ([]Plan, error)
	ToolCalls(ctx context.Context, sessionID string) ([]ToolCall, error)
	// RecentToolCalls lists a session's newest limit tool calls, oldest first, and how many the
	// session has in all: what a page shows without reading a long session's whole past.
	RecentToolCalls(ctx context.Context, sessionID string, limit int) ([]ToolCall, int, error)
	Activity(ctx context.Context, sessionID string, limit int) ([]Activity, error)
	// History lists every revision of a plan, oldest first.
	History(ctx context.Context, sessionID, planID string) ([]Revision, error)
	// ChangedSince lists the sessions changed after seq and the store's current Seq.
	ChangedSince(ctx context.Context, seq uint64) ([]string, uint64, error)
	// Seq is the newest change sequence number.
	Seq() uint64

	Lister // the paged lists (lists.go)
}

// Txn is one batch's transaction: the reads a batch makes of what it is about to change, and
// its commit. A batch reads each session and plan it touches before it writes them; a store
// that runs those reads inside the write transaction pays one transaction per batch instead of
// one per read, and nobody else can change what was read before it is written.
type Txn interface {
	Session(ctx context.Context, id string) (Session, error)
	Plan(ctx context.Context, sessionID, planID string) (Plan, error)
	ToolCall(ctx context.Context, sessionID, id string) (ToolCall, error)
	LastActivity(ctx context.Context, sessionID string) (Activity, error)
	// Commit writes c as Store.Commit does and ends the transaction.
	Commit(ctx context.Context, c *Changes) error
	// Rollback ends the transaction without writing anything; after Commit it does nothing.
	Rollback()
}

// A TxStore is a Store that can read and commit a batch in one transaction.
type TxStore interface {
	Store
	Begin(ctx context.Context) (Txn, error)
}

// Begin starts a batch on st: in a transaction of st's own when it is a TxStore, else with
// reads and a commit straight on st, as separate calls.
func Begin(ctx context.Context, st Store) (Txn, error) {
	if ts, ok := st.(TxStore); ok {
		return ts.Begin(ctx)
	}
	return directTxn{st}, nil
}

// directTxn is a batch on a store without transactions of its own.
type directTxn struct{ Store }

func (directTxn) Rollback() {}
