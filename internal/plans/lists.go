package plans

import (
	"context"
	"time"

	"github.com/plandash/plandash/internal/paging"
)

// Lister is a Store's paged lists: every list the API and pages serve reads one bounded page,
// whatever the store holds. Each orders its rows by a key that a new row never lands behind
// (newest first for sessions and revisions, oldest first for tool calls), so a walk with the
// cursors sees every row that existed when it started, once. A session seen again while a
// walk is under way moves to the front, which that walk has passed: it shows on the next walk.
type Lister interface {
	// SessionsPage lists sessions, active or not, most recently seen first (last seen, then id,
	// both descending), and the cursor of the next page (zero after the last).
	SessionsPage(ctx context.Context, r paging.Request) ([]Session, paging.Cursor, error)
	// ActivePage is Overview paged by session: the active sessions at now with their plans that
	// are not removed, most recently seen first, the next page's cursor and the store's Seq.
	ActivePage(ctx context.Context, now time.Time, idle time.Duration, r paging.Request) ([]SessionPlans, paging.Cursor, uint64, error)
	// ToolCallsPage lists a session's tool calls in the order they started (created, then id).
	ToolCallsPage(ctx context.Context, sessionID string, r paging.Request) ([]ToolCall, paging.Cursor, error)
	// RevisionsPage lists a plan's revisions without their plans, newest first, and the newest
	// revision number (0 when the plan has none).
	RevisionsPage(ctx context.Context, sessionID, planID string, r paging.Request) ([]RevisionInfo, paging.Cursor, int, error)
	// RevisionAt is one revision of a plan, or an error of kind NotFound. Its cost is bounded
	// whatever the plan's history: it never decodes more than a keyframe interval of revisions.
	RevisionAt(ctx context.Context, sessionID, planID string, revision int) (Revision, error)
}

// RevisionInfo is a revision as a list shows it, without the plan.
type RevisionInfo struct {
	Revision int       `json:"revision"`
	At       time.Time `json:"at"`
}

// LastSeenCursor is the position of a session in SessionsPage and ActivePage (most recently seen
// first).
func LastSeenCursor(s Session) paging.Cursor {
	return paging.Cursor{Key: s.LastSeen.UnixNano(), ID: s.ID}
}

// ToolCallCursor is the position of a tool call in ToolCallsPage.
func ToolCallCursor(t ToolCall) paging.Cursor {
	return paging.Cursor{Key: t.Created.UnixNano(), ID: t.ID}
}

// RevisionCursor is the position of a revision in RevisionsPage.
func RevisionCursor(r RevisionInfo) paging.Cursor { return paging.Cursor{Key: int64(r.Revision)} }
