package metrics

import (
	"context"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/sharedplans"
)

// The stores, timed: each call records its duration in StoreLatency, whichever database is
// behind it. The optional interfaces the services look for (plans.Pruner, approval.Sequencer)
// are kept when the store has them, so timing never changes what a service can do.

// TimePlans times every call of a plans store.
func (s *Set) TimePlans(st plans.Store) plans.Store {
	t := timedPlans{st: st, m: s}
	if p, ok := st.(plans.Pruner); ok {
		return timedPrunablePlans{t, p}
	}
	return t
}

// TimeApprovals times every call of an approval store.
func (s *Set) TimeApprovals(st approval.Store) approval.Store {
	t := timedApprovals{st: st, m: s}
	if q, ok := st.(approval.Sequencer); ok {
		return timedSequencedApprovals{t, q}
	}
	return t
}

// TimeSharedHistory times every call of the shared-plan history store.
func (s *Set) TimeSharedHistory(st sharedplans.HistoryStore) sharedplans.HistoryStore {
	return timedHistory{st: st, m: s}
}

type timedPlans struct {
	st plans.Store
	m  *Set
}

func (t timedPlans) time(call string) func() { return t.m.Time("plans", call) }

func (t timedPlans) Commit(ctx context.Context, c *plans.Changes) error {
	defer t.time("commit")()
	return t.st.Commit(ctx, c)
}

func (t timedPlans) Session(ctx context.Context, id string) (plans.Session, error) {
	defer t.time("session")()
	return t.st.Session(ctx, id)
}

func (t timedPlans) Plan(ctx context.Context, sessionID, planID string) (plans.Plan, error) {
	defer t.time("plan")()
	return t.st.Plan(ctx, sessionID, planID)
}

func (t timedPlans) ToolCall(ctx context.Context, sessionID, id string) (plans.ToolCall, error) {
	defer t.time("tool_call")()
	return t.st.ToolCall(ctx, sessionID, id)
}

func (t timedPlans) LastActivity(ctx context.Context, sessionID string) (plans.Activity, error) {
	defer t.time("last_activity")()
	return t.st.LastActivity(ctx, sessionID)
}

func (t timedPlans) Overview(ctx context.Context, now time.Time, idle time.Duration) ([]plans.SessionPlans, uint64, error) {
	defer t.time("overview")()
	return t.st.Overview(ctx, now, idle)
}

func (t timedPlans) WentIdle(ctx context.Context, after, upTo time.Time) ([]string, error) {
	defer t.time("went_idle")()
	return t.st.WentIdle(ctx, after, upTo)
}

func (t timedPlans) Sessions(ctx context.Context, limit int) ([]plans.Session, error) {
	defer t.time("sessions")()
	return t.st.Sessions(ctx, limit)
}

func (t timedPlans) SessionPlans(ctx context.Context, sessionID string) ([]plans.Plan, error) {
	defer t.time("session_plans")()
	return t.st.SessionPlans(ctx, sessionID)
}

func (t timedPlans) ToolCalls(ctx context.Context, sessionID string) ([]plans.ToolCall, error) {
	defer t.time("tool_calls")()
	return t.st.ToolCalls(ctx, sessionID)
}

func (t timedPlans) RecentToolCalls(ctx context.Context, sessionID string, limit int) ([]plans.ToolCall, int, error) {
	defer t.time("recent_tool_calls")()
	return t.st.RecentToolCalls(ctx, sessionID, limit)
}

func (t timedPlans) Activity(ctx context.Context, sessionID string, limit int) ([]plans.Activity, error) {
	defer t.time("activity")()
	return t.st.Activity(ctx, sessionID, limit)
}

func (t timedPlans) History(ctx context.Context, sessionID, planID string) ([]plans.Revision, error) {
	defer t.time("history")()
	return t.st.History(ctx, sessionID, planID)
}

func (t timedPlans) ChangedSince(ctx context.Context, seq uint64) ([]string, uint64, error) {
	defer t.time("changed_since")()
	return t.st.ChangedSince(ctx, seq)
}

// Seq is an in-memory read on both stores: not timed.
func (t timedPlans) Seq() uint64 { return t.st.Seq() }

type timedPrunablePlans struct {
	timedPlans
	p plans.Pruner
}

func (t timedPrunablePlans) Prune(ctx context.Context, now time.Time, r plans.Retention) (plans.PruneStats, error) {
	defer t.time("prune")()
	return t.p.Prune(ctx, now, r)
}

type timedApprovals struct {
	st approval.Store
	m  *Set
}

func (t timedApprovals) time(call string) func() { return t.m.Time("approvals", call) }

func (t timedApprovals) Create(ctx context.Context, r approval.Request, ev []approval.AuditEvent) (approval.Request, bool, error) {
	defer t.time("create")()
	return t.st.Create(ctx, r, ev)
}

func (t timedApprovals) Get(ctx context.Context, id string) (approval.Request, error) {
	defer t.time("get")()
	return t.st.Get(ctx, id)
}

func (t timedApprovals) Decide(ctx context.Context, r approval.Request, ev []approval.AuditEvent) (bool, error) {
	defer t.time("decide")()
	return t.st.Decide(ctx, r, ev)
}

func (t timedApprovals) Pending(ctx context.Context, limit int) ([]approval.Request, error) {
	defer t.time("pending")()
	return t.st.Pending(ctx, limit)
}

func (t timedApprovals) PendingSummaries(ctx context.Context) ([]approval.Summary, error) {
	defer t.time("pending_summaries")()
	return t.st.PendingSummaries(ctx)
}

func (t timedApprovals) Elsewhere(ctx context.Context) ([]approval.Request, error) {
	defer t.time("elsewhere")()
	return t.st.Elsewhere(ctx)
}

func (t timedApprovals) Decided(ctx context.Context, limit int) ([]approval.Request, error) {
	defer t.time("decided")()
	return t.st.Decided(ctx, limit)
}

func (t timedApprovals) CountPending(ctx context.Context) (int, error) {
	defer t.time("count_pending")()
	return t.st.CountPending(ctx)
}

func (t timedApprovals) Due(ctx context.Context, now time.Time, limit int) ([]approval.Request, error) {
	defer t.time("due")()
	return t.st.Due(ctx, now, limit)
}

func (t timedApprovals) NextDeadline(ctx context.Context) (time.Time, bool, error) {
	defer t.time("next_deadline")()
	return t.st.NextDeadline(ctx)
}

func (t timedApprovals) PutRule(ctx context.Context, r approval.Rule, ev approval.AuditEvent) error {
	defer t.time("put_rule")()
	return t.st.PutRule(ctx, r, ev)
}

func (t timedApprovals) Rule(ctx context.Context, id string) (approval.Rule, error) {
	defer t.time("rule")()
	return t.st.Rule(ctx, id)
}

func (t timedApprovals) Rules(ctx context.Context, withRevoked bool) ([]approval.Rule, error) {
	defer t.time("rules")()
	return t.st.Rules(ctx, withRevoked)
}

func (t timedApprovals) Audit(ctx context.Context, f approval.AuditFilter) ([]approval.AuditEvent, error) {
	defer t.time("audit")()
	return t.st.Audit(ctx, f)
}

func (t timedApprovals) Seq(ctx context.Context) (uint64, error) {
	defer t.time("seq")()
	return t.st.Seq(ctx)
}

type timedSequencedApprovals struct {
	timedApprovals
	q approval.Sequencer
}

func (t timedSequencedApprovals) NextSeq(ctx context.Context) (uint64, error) {
	defer t.time("next_seq")()
	return t.q.NextSeq(ctx)
}

type timedHistory struct {
	st sharedplans.HistoryStore
	m  *Set
}

func (t timedHistory) time(call string) func() { return t.m.Time("shared_history", call) }

func (t timedHistory) Record(ctx context.Context, e sharedplans.HistoryEntry) (sharedplans.HistoryEntry, bool, error) {
	defer t.time("record")()
	return t.st.Record(ctx, e)
}

func (t timedHistory) Seq(ctx context.Context) (int64, error) {
	defer t.time("seq")()
	return t.st.Seq(ctx)
}

func (t timedHistory) Entry(ctx context.Context, name string, seq int64) (sharedplans.HistoryEntry, bool, error) {
	defer t.time("entry")()
	return t.st.Entry(ctx, name, seq)
}

func (t timedHistory) Latest(ctx context.Context, name string) (sharedplans.HistoryEntry, bool, error) {
	defer t.time("latest")()
	return t.st.Latest(ctx, name)
}

func (t timedHistory) History(ctx context.Context, name string, limit int) ([]sharedplans.HistoryEntry, error) {
	defer t.time("history")()
	return t.st.History(ctx, name, limit)
}

func (t timedHistory) ChangedSince(ctx context.Context, seq int64) ([]sharedplans.HistoryEntry, error) {
	defer t.time("changed_since")()
	return t.st.ChangedSince(ctx, seq)
}

func (t timedHistory) Current(ctx context.Context) (map[string]sharedplans.HistoryEntry, error) {
	defer t.time("current")()
	return t.st.Current(ctx)
}

// The timed stores keep the optional interfaces of what they wrap.
var (
	_ plans.Pruner             = timedPrunablePlans{}
	_ approval.Sequencer       = timedSequencedApprovals{}
	_ plans.Store              = timedPlans{}
	_ approval.Store           = timedApprovals{}
	_ sharedplans.HistoryStore = timedHistory{}
)
