package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/plandash/plandash/internal/plans"
)

var _ plans.TxStore = (*plansStore)(nil)

// txn is one batch's transaction on the writer (plans.Txn). It is begun IMMEDIATE, before the
// batch reads anything: the reads are then lookups in a transaction already open, instead of
// a read transaction each (a batch of ten updates to ten sessions made twenty), and no other
// process can write between the batch's reads and its commit.
type txn struct {
	s    *plansStore
	tx   *sql.Tx
	done bool
	// The read statements, bound to tx when first used.
	session, plan, toolCall, lastActivity *sql.Stmt
}

// Begin starts a batch's transaction.
func (s *plansStore) Begin(ctx context.Context) (plans.Txn, error) { return s.begin(ctx) }

func (s *plansStore) begin(ctx context.Context) (*txn, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.f.note(err)
	}
	var version int64
	if err := tx.StmtContext(ctx, s.stmt.dataVersion).QueryRowContext(ctx).Scan(&version); err != nil {
		tx.Rollback()
		return nil, s.f.note(err)
	}
	s.cur.check(version)
	return &txn{s: s, tx: tx}, nil
}

// bound is st bound to the transaction, binding it into *dst the first time.
func (t *txn) bound(ctx context.Context, dst **sql.Stmt, st *sql.Stmt) *sql.Stmt {
	if *dst == nil {
		*dst = t.tx.StmtContext(ctx, st)
	}
	return *dst
}

func (t *txn) Session(ctx context.Context, id string) (plans.Session, error) {
	if s, ok := t.s.cur.session(id); ok {
		return s, nil
	}
	s, err := oneStmt[plans.Session](ctx, t.bound(ctx, &t.session, t.s.stmt.session), id)
	if err == nil {
		t.s.cur.putSession(s)
	}
	return s, err
}

func (t *txn) Plan(ctx context.Context, sessionID, planID string) (plans.Plan, error) {
	if p, ok := t.s.cur.plan(plans.PlanKey{SessionID: sessionID, PlanID: planID}); ok {
		return p, nil
	}
	p, err := oneStmt[plans.Plan](ctx, t.bound(ctx, &t.plan, t.s.stmt.plan), sessionID, planID)
	if err == nil {
		t.s.cur.putPlan(p)
	}
	return p, err
}

func (t *txn) ToolCall(ctx context.Context, sessionID, id string) (plans.ToolCall, error) {
	if c, ok := t.s.cur.toolCall(plans.PlanKey{SessionID: sessionID, PlanID: id}); ok {
		return c, nil
	}
	return oneStmt[plans.ToolCall](ctx, t.bound(ctx, &t.toolCall, t.s.stmt.toolCall), sessionID, id)
}

func (t *txn) LastActivity(ctx context.Context, sessionID string) (plans.Activity, error) {
	if a, ok := t.s.cur.lastActivity(sessionID); ok {
		return a, nil
	}
	return lastActivity(ctx, t.bound(ctx, &t.lastActivity, t.s.stmt.lastActivity), sessionID)
}

// Commit writes c and commits; it returns once c is durable.
func (t *txn) Commit(ctx context.Context, c *plans.Changes) (err error) {
	defer func() { err = t.s.f.note(err) }()
	if t.done {
		return errors.New("sqlite: commit of a batch already ended")
	}
	t.done = true
	seq := t.s.seq.Load() + 1
	batch, err := t.s.write(ctx, t.tx, c, seq)
	if err == nil {
		err = t.tx.Commit()
	}
	if err != nil {
		t.tx.Rollback()
		t.s.cur.forget()
		return err
	}
	batch.Committed()
	t.s.cur.committed(c)
	t.s.seq.Store(seq)
	return nil
}

// Rollback ends the transaction without writing; after Commit it does nothing.
func (t *txn) Rollback() {
	if !t.done {
		t.done = true
		t.tx.Rollback()
	}
}
