package metrics

import (
	"context"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/sharedplans"
)

// The paged lists, timed like every other store call.

func (t timedPlans) SessionsPage(ctx context.Context, r paging.Request) ([]plans.Session, paging.Cursor, error) {
	defer t.time("sessions_page")()
	return t.st.SessionsPage(ctx, r)
}

func (t timedPlans) ActivePage(ctx context.Context, now time.Time, idle time.Duration, r paging.Request) ([]plans.SessionPlans, paging.Cursor, uint64, error) {
	defer t.time("active_page")()
	return t.st.ActivePage(ctx, now, idle, r)
}

func (t timedPlans) ToolCallsPage(ctx context.Context, sessionID string, r paging.Request) ([]plans.ToolCall, paging.Cursor, error) {
	defer t.time("tool_calls_page")()
	return t.st.ToolCallsPage(ctx, sessionID, r)
}

func (t timedPlans) RevisionsPage(ctx context.Context, sessionID, planID string, r paging.Request) ([]plans.RevisionInfo, paging.Cursor, int, error) {
	defer t.time("revisions_page")()
	return t.st.RevisionsPage(ctx, sessionID, planID, r)
}

func (t timedPlans) RevisionAt(ctx context.Context, sessionID, planID string, revision int) (plans.Revision, error) {
	defer t.time("revision_at")()
	return t.st.RevisionAt(ctx, sessionID, planID, revision)
}

func (t timedApprovals) PendingPage(ctx context.Context, r paging.Request) ([]approval.Request, paging.Cursor, error) {
	defer t.m.Time("approvals", "pending_page")()
	return t.st.PendingPage(ctx, r)
}

func (t timedApprovals) DecidedPage(ctx context.Context, r paging.Request) ([]approval.Request, paging.Cursor, error) {
	defer t.m.Time("approvals", "decided_page")()
	return t.st.DecidedPage(ctx, r)
}

func (t timedApprovals) AuditPage(ctx context.Context, f approval.AuditFilter, r paging.Request) ([]approval.AuditEvent, paging.Cursor, error) {
	defer t.m.Time("approvals", "audit_page")()
	return t.st.AuditPage(ctx, f, r)
}

func (t timedHistory) HistoryBefore(ctx context.Context, name string, before int64, limit int) ([]sharedplans.HistoryEntry, error) {
	defer t.m.Time("shared_history", "history_before")()
	return t.st.HistoryBefore(ctx, name, before, limit)
}

func (t timedApprovals) LatestInSession(ctx context.Context, sessionID string, before time.Time) (approval.Request, bool, error) {
	defer t.time("latest_in_session")()
	return t.st.LatestInSession(ctx, sessionID, before)
}

func (t timedPlans) ListSessions(ctx context.Context, f plans.SessionFilter, after plans.SessionCursor, limit int) ([]plans.SessionPlans, bool, error) {
	defer t.time("list_sessions")()
	return t.st.ListSessions(ctx, f, after, limit)
}

func (t timedPlans) Outline(ctx context.Context, id string, n int, whole func(plans.PlanRef) bool) (plans.Outline, error) {
	defer t.time("outline")()
	return t.st.Outline(ctx, id, n, whole)
}

func (t timedPlans) RecentPlan(ctx context.Context, sessionID, planID string, n int) (plans.Plan, bool, error) {
	defer t.time("recent_plan")()
	return t.st.RecentPlan(ctx, sessionID, planID, n)
}
