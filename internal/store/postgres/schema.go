package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/plandash/plandash/internal/notify/notifysql"
)

// toolCallsByTime lets a session page read its newest tool calls without sorting them all.
const toolCallsByTime = `CREATE INDEX IF NOT EXISTS tool_calls_created ON tool_calls(session_id, created_ns, id);`

// migrations are the schema's steps in order: applying steps[0:n] brings a database to version
// n, recorded in plandash_schema. A new table or column is a new step at the end; a step never
// changes once released.
func migrations() []string {
	return []string{plansSchema, approvalsSchema, historySchema, toolCallsByTime, multiInstance, permissionsSchema, tokensSchema, approvalsBySession, firstSeenColumn, planTally, toolCallCount, submitterInBody, permissionStreams, keptWaitsSchema, notifysql.PostgresSchema, notifysql.PostgresRemote, revisionDeltas, approvalsElsewhere, sessionsSeqDropped}
}

// sessionsSeqDropped drops the index of sessions by change number, as SQLite does: every
// commit moved each session it touched in it, and nothing reads it but ChangedSince, which the
// server does not call.
const sessionsSeqDropped = `DROP INDEX IF EXISTS sessions_seq;`

// approvalsElsewhere lists the requests the agents' own dialogs have (status 'elsewhere',
// their outcome not known yet) without reading the decided ones.
const approvalsElsewhere = `CREATE INDEX IF NOT EXISTS approval_requests_elsewhere ON approval_requests(created_ns, n) WHERE status = 'elsewhere';`

// approvalsBySession finds a session's previous request, whose review a new one may answer.
const approvalsBySession = `CREATE INDEX IF NOT EXISTS approval_requests_session ON approval_requests(session_id, created_ns, n);`

// Advisory locks are scoped to the schema the tables live in (its name hashed is the lock's
// first key), so two plandash deployments in different schemas of one database do not queue
// on each other; the second key says what the lock guards.
const (
	lockMigrate = 1 // the schema's migrations
	lockPlans   = 2 // plans commits: sequence numbers drawn and committed in order
	lockHistory = 3 // shared-plan history records: the same, and deduplication across instances
)

// lockSQL takes one of the locks above until the transaction ends.
const lockSQL = `SELECT pg_advisory_xact_lock(hashtext(coalesce(current_schema(), '')), $1)`

// SchemaError is returned by Open for a database migrated by a newer plandash.
type SchemaError struct {
	Found, Known int // the database's schema version, and the newest this binary knows
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("the database's schema is version %d, newer than this plandash knows (%d): "+
		"it was migrated by a newer plandash; run that version, or point --db at another database", e.Found, e.Known)
}

// versionTable records the schema version: one row, so reading it needs no ordering.
const versionTable = `CREATE TABLE IF NOT EXISTS plandash_schema (
	one boolean PRIMARY KEY DEFAULT true CHECK (one),
	version integer NOT NULL
)`

// migrate applies the steps the database lacks in one transaction that holds the migration
// lock: instances starting at once take turns, and the later ones find nothing left to do.
// PostgreSQL's DDL is transactional, so a failing step leaves the database as it was.
func migrate(ctx context.Context, pool *dbPool) error {
	steps := migrations()
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockSQL, lockMigrate); err != nil {
			return fmt.Errorf("take the migration lock: %w", err)
		}
		if _, err := tx.Exec(ctx, versionTable); err != nil {
			return fmt.Errorf("create the schema version table: %w", err)
		}
		var version int
		err := tx.QueryRow(ctx, `SELECT version FROM plandash_schema`).Scan(&version)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("read schema version: %w", err)
		}
		if version > len(steps) {
			return &SchemaError{Found: version, Known: len(steps)}
		}
		if version == len(steps) {
			return nil
		}
		for i := version; i < len(steps); i++ {
			// No arguments: pgx sends it as one simple query, several statements at once.
			if _, err := tx.Exec(ctx, steps[i]); err != nil {
				return fmt.Errorf("schema step %d: %w", i+1, err)
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO plandash_schema(version) VALUES($1)
			ON CONFLICT (one) DO UPDATE SET version = excluded.version`, len(steps))
		if err != nil {
			return fmt.Errorf("record schema version: %w", err)
		}
		return nil
	})
}

// multiInstance is what several instances on one database need to tell each other of changes
// exactly: plans and tool calls carry the Seq of the commit that last wrote them, so a listener
// that lost its connection reads back what changed; the gate draws change numbers from
// approval_seq (unique across instances) and orders its commits by approvals_clock, whose row
// lock each write takes, so "changed" numbers become visible in order.
const multiInstance = `
ALTER TABLE plans ADD COLUMN seq bigint NOT NULL DEFAULT 0;
CREATE INDEX plans_by_seq ON plans(seq);
ALTER TABLE tool_calls ADD COLUMN seq bigint NOT NULL DEFAULT 0;
CREATE INDEX tool_calls_by_seq ON tool_calls(seq);
CREATE SEQUENCE approval_seq;
SELECT setval('approval_seq', 1 + GREATEST(COALESCE((SELECT MAX(seq) FROM approval_requests), 0),
	COALESCE((SELECT MAX(seq) FROM approval_rules), 0)), false);
CREATE TABLE approvals_clock (
	one boolean PRIMARY KEY DEFAULT true CHECK (one),
	n bigint NOT NULL
);
INSERT INTO approvals_clock(n) VALUES (0);
ALTER TABLE approval_requests ADD COLUMN changed bigint NOT NULL DEFAULT 0;
CREATE INDEX approval_requests_changed ON approval_requests(changed);
ALTER TABLE approval_rules ADD COLUMN changed bigint NOT NULL DEFAULT 0;
CREATE INDEX approval_rules_changed ON approval_rules(changed);
`
