package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/plandash/plandash/internal/plans"
)

var _ plans.TxStore = (*plansStore)(nil)

// txn is one batch's transaction on the writer (plans.Txn). It is begun IMMEDIATE, before the
// batch reads anything: the reads are then lookups in a transaction already open, instead of
// a read transaction each (a batch of ten updates to ten sessions made twenty), and no other
// process can write between the batch's reads and its commit. It holds the writer's one
// connection until it ends, and runs its statements on the driver's connection (rawConn).
type txn struct {
	s    *plansStore
	c    *rawConn
	tx   driver.Tx
	done bool
}

// Begin starts a batch's transaction.
func (s *plansStore) Begin(ctx context.Context) (plans.Txn, error) { return s.begin(ctx) }

// begin waits for the writer's connection as long as ctx allows; once it has it, the
// transaction runs to its end without ctx's cancellation (rawConn).
func (s *plansStore) begin(ctx context.Context) (*txn, error) {
	c, err := s.raw.conn(ctx, s.w)
	if err != nil {
		return nil, s.f.note(err)
	}
	if err := ctx.Err(); err != nil { // cancelled while it waited: nothing begun yet
		c.conn.Close()
		return nil, err
	}
	tx, err := c.begin(ctx)
	if err != nil {
		c.conn.Close()
		return nil, s.f.note(err)
	}
	t := &txn{s: s, c: c, tx: tx}
	var version int64
	if err := c.queryRow(ctx, `PRAGMA data_version`, nil, &version); err != nil {
		t.Rollback()
		return nil, s.f.note(err)
	}
	s.cur.check(version)
	return t, nil
}

// close finalizes the statements prepared on the writer's driver connection (rawStmts):
// SQLite keeps a closed connection with statements still open alive.
func (s *plansStore) close() {
	conn, err := s.w.Conn(context.Background())
	if err != nil {
		return
	}
	defer conn.Close()
	conn.Raw(func(any) error {
		s.raw.close()
		return nil
	})
}

func (t *txn) Session(ctx context.Context, id string) (plans.Session, error) {
	if s, ok := t.s.cur.session(id); ok {
		return s, nil
	}
	s, err := rawOne[plans.Session](ctx, t.c, sqlSession, id)
	if err == nil {
		t.s.cur.putSession(s)
	}
	return s, err
}

func (t *txn) Plan(ctx context.Context, sessionID, planID string) (plans.Plan, error) {
	if p, ok := t.s.cur.plan(plans.PlanKey{SessionID: sessionID, PlanID: planID}); ok {
		return p, nil
	}
	p, err := rawOne[plans.Plan](ctx, t.c, sqlPlan, sessionID, planID)
	if err == nil {
		t.s.cur.putPlan(p)
	}
	return p, err
}

func (t *txn) ToolCall(ctx context.Context, sessionID, id string) (plans.ToolCall, error) {
	if c, ok := t.s.cur.toolCall(plans.PlanKey{SessionID: sessionID, PlanID: id}); ok {
		return c, nil
	}
	return rawOne[plans.ToolCall](ctx, t.c, sqlToolCall, sessionID, id)
}

func (t *txn) LastActivity(ctx context.Context, sessionID string) (plans.Activity, error) {
	if a, ok := t.s.cur.lastActivity(sessionID); ok {
		return a, nil
	}
	var id int64
	var body []byte
	if err := t.c.queryRow(ctx, sqlLastActivity, []any{sessionID}, &id, &body); err != nil {
		return plans.Activity{}, notFound(err)
	}
	a, err := decode[plans.Activity](body)
	a.ID = id
	return a, err
}

// rawOne reads one body in the batch's transaction and decodes it; plans.ErrNotFound when
// there is no row.
func rawOne[T any](ctx context.Context, c *rawConn, q string, args ...any) (T, error) {
	var body []byte
	if err := c.queryRow(ctx, q, args, &body); err != nil {
		var zero T
		return zero, notFound(err)
	}
	return decode[T](body)
}

// Commit writes c and commits; it returns once c is durable.
func (t *txn) Commit(ctx context.Context, c *plans.Changes) (err error) {
	defer func() { err = t.s.f.note(err) }()
	if t.done {
		return errors.New("sqlite: commit of a batch already ended")
	}
	t.done = true
	seq := t.s.seq.Load() + 1
	batch, err := t.s.write(ctx, t.c, c, seq)
	if err = errors.Join(err, t.c.end(t.tx, err == nil)); err != nil {
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
		t.c.end(t.tx, false)
	}
}
