package metrics

import (
	"context"

	"github.com/plandash/plandash/internal/plans"
)

// Begin starts a batch on the store (in its own transaction when it has them), its reads and
// commit timed under the same names as the store's own.
func (t timedPlans) Begin(ctx context.Context) (plans.Txn, error) {
	defer t.time("begin")()
	tx, err := plans.Begin(ctx, t.st)
	if err != nil {
		return nil, err
	}
	return timedTxn{tx: tx, t: t}, nil
}

type timedTxn struct {
	tx plans.Txn
	t  timedPlans
}

func (x timedTxn) Session(ctx context.Context, id string) (plans.Session, error) {
	defer x.t.time("session")()
	return x.tx.Session(ctx, id)
}

func (x timedTxn) Plan(ctx context.Context, sessionID, planID string) (plans.Plan, error) {
	defer x.t.time("plan")()
	return x.tx.Plan(ctx, sessionID, planID)
}

func (x timedTxn) ToolCall(ctx context.Context, sessionID, id string) (plans.ToolCall, error) {
	defer x.t.time("tool_call")()
	return x.tx.ToolCall(ctx, sessionID, id)
}

func (x timedTxn) LastActivity(ctx context.Context, sessionID string) (plans.Activity, error) {
	defer x.t.time("last_activity")()
	return x.tx.LastActivity(ctx, sessionID)
}

func (x timedTxn) Commit(ctx context.Context, c *plans.Changes) error {
	defer x.t.time("commit")()
	return x.tx.Commit(ctx, c)
}

func (x timedTxn) Rollback() { x.tx.Rollback() }
