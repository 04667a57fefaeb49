package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/plandash/plandash/internal/notify/notifysql"
)

// migrations are the schema's steps in order: applying steps[0:n] brings a database to version
// n, recorded in PRAGMA user_version. A new table or column is a new step at the end; a step
// never changes once released.
//
// The first three steps are the schemas the three stores created on their own before the
// version was recorded. They are idempotent (IF NOT EXISTS) because such a database (version 0)
// may already hold any of their tables, with the same names and columns.
func migrations() []string {
	return []string{plansSchema, approvalsSchema, historySchema, toolCallsByTime, revisionsSchema, tokensSchema, approvalsBySession, firstSeenColumn, planTally, toolCallCount, submitterInBody, keptWaitsSchema, notifysql.SQLiteSchema, notifysql.SQLiteRemote, approvalsElsewhere, toolCallsAppended, sessionsSeqDropped, revisionsAppended}
}

// revisionsAppended keeps plan revisions in two tables: their keys (session, plan, revision),
// clustered by plan, and their bodies, appended in the order they were written. Keyed by plan,
// every revision went into the middle of one table, body and all, at the end of its plan's
// range: a commit touching 50 plans wrote at least 50 leaves of it and split them often (a post
// of 100 plan updates over 50 sessions wrote 119 pages of history). Now the bodies go to the
// last pages and only the small keys are spread. plan_revisions is a view of both for reading
// (the history's queries read it as they read the table); writes go to the tables.
const revisionsAppended = `
CREATE TABLE revision_bodies (
	id INTEGER PRIMARY KEY,
	body BLOB NOT NULL,
	format INTEGER NOT NULL,
	at INTEGER NOT NULL
);
CREATE TABLE revision_keys (
	session_id TEXT NOT NULL,
	plan_id TEXT NOT NULL,
	revision INTEGER NOT NULL,
	body_id INTEGER NOT NULL,
	PRIMARY KEY (session_id, plan_id, revision)
) WITHOUT ROWID;
INSERT INTO revision_bodies(id, body, format, at)
	SELECT row_number() OVER (ORDER BY at, session_id, plan_id, revision), body, format, at FROM plan_revisions;
INSERT INTO revision_keys(session_id, plan_id, revision, body_id)
	SELECT session_id, plan_id, revision, row_number() OVER (ORDER BY at, session_id, plan_id, revision) FROM plan_revisions;
DROP TABLE plan_revisions;
CREATE VIEW plan_revisions AS
	SELECT k.session_id, k.plan_id, k.revision, b.body, b.format, b.at
	FROM revision_keys k JOIN revision_bodies b ON b.id = k.body_id;
`

// sessionsSeqDropped drops the index of sessions by change number. Every commit moves each
// session it touches in it (a delete and an insert: a page more to write per commit, some 4 %
// of the server's CPU at ten messages a post), and no page reads it: only ChangedSince, which
// nothing in the server calls (pages catch up through the live layer's own sequence), and the
// MAX(seq) read once at start, which now reads the table.
const sessionsSeqDropped = `DROP INDEX IF EXISTS sessions_seq;`

// toolCallsAppended moves tool calls into a table kept in the order they were created, with
// (session_id, id) a unique index beside it. Keyed by session and id, every new call of every
// active session was inserted into the middle of the table, body and all, splitting pages: a
// commit of 1,000 mixed messages over 100 sessions (100 new calls) wrote 272 pages of it. Now
// the bodies are appended to the last pages and only the small index entries are spread. The
// index and the trigger that counts a session's calls go with the old table and are made again.
const toolCallsAppended = `
CREATE TABLE tool_calls_appended (
	session_id TEXT NOT NULL,
	id TEXT NOT NULL,
	created INTEGER NOT NULL,
	body BLOB NOT NULL,
	UNIQUE (session_id, id)
);
INSERT INTO tool_calls_appended(session_id, id, created, body) SELECT session_id, id, created, body FROM tool_calls ORDER BY created, session_id, id;
DROP TABLE tool_calls;
ALTER TABLE tool_calls_appended RENAME TO tool_calls;
CREATE INDEX tool_calls_created ON tool_calls(session_id, created, id);
CREATE TRIGGER tool_calls_counted AFTER INSERT ON tool_calls BEGIN
	UPDATE sessions SET tool_calls = tool_calls + 1 WHERE id = NEW.session_id;
END;
`

// approvalsElsewhere lists the requests the agents' own dialogs have (status 'elsewhere',
// their outcome not known yet) without reading the decided ones.
const approvalsElsewhere = `CREATE INDEX IF NOT EXISTS approval_requests_elsewhere ON approval_requests(created) WHERE status = 'elsewhere';`

// approvalsBySession finds a session's previous request, whose review a new one may answer.
const approvalsBySession = `CREATE INDEX IF NOT EXISTS approval_requests_session ON approval_requests(session_id, created);`

// toolCallsByTime lets a session page read its newest tool calls without sorting them all.
const toolCallsByTime = `CREATE INDEX IF NOT EXISTS tool_calls_created ON tool_calls(session_id, created, id);`

// SchemaError is returned by Open for a database written by a newer plandash.
type SchemaError struct {
	Found, Known int // the database's schema version, and the newest this binary knows
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("the database's schema is version %d, newer than this plandash knows (%d): "+
		"it was written by a newer plandash; run that version, or use another data directory", e.Found, e.Known)
}

// migrate applies the steps the database lacks, in one immediate transaction: two processes
// opening the same file at once take turns, and the second finds nothing left to do.
func migrate(ctx context.Context, w *sql.DB) (err error) {
	if err := incrementalVacuum(ctx, w); err != nil {
		return err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	steps := migrations()
	if version > len(steps) {
		return &SchemaError{Found: version, Known: len(steps)}
	}
	if version == len(steps) {
		return tx.Commit()
	}
	for i := version; i < len(steps); i++ {
		if _, err := tx.ExecContext(ctx, steps[i]); err != nil {
			return fmt.Errorf("schema step %d: %w", i+1, err)
		}
	}
	// PRAGMA takes no parameters; the number is ours.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, len(steps))); err != nil {
		return fmt.Errorf("record schema version: %w", err)
	}
	return tx.Commit()
}

// incrementalVacuum makes a new, empty database file one whose freed pages can be given back
// to the file system (PRAGMA incremental_vacuum, after pruning history). SQLite fixes this mode
// when the first table is created, and the connection is already in WAL mode by then, so the
// empty file is vacuumed once to take it. A file that already has tables keeps its mode: pages
// it frees stay in it, to be reused by later writes, until someone runs a full VACUUM (see
// DB.EnableIncrementalVacuum).
func incrementalVacuum(ctx context.Context, w *sql.DB) error {
	var tables int
	if err := w.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master`).Scan(&tables); err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	if tables > 0 {
		return nil
	}
	if _, err := w.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return fmt.Errorf("set auto_vacuum: %w", err)
	}
	if _, err := w.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("set auto_vacuum: %w", err)
	}
	return nil
}
