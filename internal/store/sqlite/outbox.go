package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/notify/notifysql"
)

// OutboxFile is the name of the notifications' own database file, next to the main one.
const OutboxFile = "notify-outbox.db"

// outboxDB is the notifications' own SQLite file: the outbox, the ids of the messages that
// announced waits, and the answer links. Every wait's beginning and end writes to them, once
// per target and again when each send is done; in the main file those commits queued on the
// one writer that ingest and the gate commit on (1,000 waits in a second are some 2,400 sends,
// each stored, then recorded), between the gate's own commits. In a file of their own they have their own writer, and
// commit with synchronous=NORMAL: a crash of the process loses nothing (the WAL is written at
// commit), a power cut at most the last of it, which the next start makes again with the same
// idempotency keys (see notifysql's outboxTx). What lasts — the targets an admin configured and
// the push keys — stays in the main file, with everything a backup must keep: this file holds
// only what is due now, a week of delivery history, and links that expire within a day.
type outboxDB struct {
	w *sql.DB // one connection, as the main file's writer
	r *readDB
	s *notifysql.Store // the store on it, its statements prepared once

	c *checkpointer
}

// outboxSchema is the outbox file's schema: the main file's notification steps, whose
// outbox, remote and links tables are the ones used here (its targets and secrets tables stay
// empty in this file). Recorded as user_version 1.
var outboxSchema = []string{notifysql.SQLiteSchema, notifysql.SQLiteRemote}

// openOutbox opens (creating, mode 0600) the outbox file beside the main database, brings its
// schema up to date, and moves into it what an older plandash left in the main file's tables.
func openOutbox(ctx context.Context, mainPath string, main *sql.DB) (*outboxDB, error) {
	path := filepath.Join(filepath.Dir(mainPath), OutboxFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open outbox: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("open outbox: %w", err)
	}
	base := strings.Replace(dsn(path, ""), "synchronous(FULL)", "synchronous(NORMAL)", 1)
	// The writer checkpoints only as a last resort: its checkpointer does (see checkpointer).
	w, err := sql.Open("sqlite", base+"&_txlock=immediate"+writerCheckpoint)
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	if err := migrateOutbox(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := moveOutbox(ctx, w, main, mainPath); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: moving the outbox from %s: %w", path, filepath.Base(mainPath), err)
	}
	rdb, err := sql.Open("sqlite", base+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, err
	}
	rdb.SetMaxOpenConns(2)
	rdb.SetMaxIdleConns(2)
	c, err := startCheckpoints(base)
	if err != nil {
		w.Close()
		rdb.Close()
		return nil, err
	}
	o := &outboxDB{w: w, r: newReadDB(rdb), c: c}
	o.s = notifysql.New(w, notifysql.SQLite).WithReader(o.r)
	if err := o.s.Prepare(ctx); err != nil {
		o.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return o, nil
}

func migrateOutbox(ctx context.Context, w *sql.DB) error {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version > len(outboxSchema) {
		return &SchemaError{Found: version, Known: len(outboxSchema)}
	}
	if version == len(outboxSchema) {
		return nil // up to date: nothing written (a full disk still serves)
	}
	for i := version; i < len(outboxSchema); i++ {
		if _, err := tx.ExecContext(ctx, outboxSchema[i]); err != nil {
			return fmt.Errorf("schema step %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, len(outboxSchema))); err != nil {
		return err
	}
	return tx.Commit()
}

// movedTables are the notification tables that live in the outbox file, with their columns.
var movedTables = []struct{ name, cols string }{
	{"notify_outbox", "id, key, target, wait_id, event, wait, due, attempts, status, error, owner, lease_until, created, done"},
	{"notify_remote", "target, wait_id, remote, created"},
	{"notify_links", "hash, body, expires, used"},
}

// moveOutbox copies the rows of the main file's outbox, remote and links tables (a database
// an older plandash wrote) into the outbox file, then deletes them from the main file. The
// copy commits first and keeps what the outbox file has already (INSERT OR IGNORE, keys and
// ids kept): a crash between the two commits leaves rows in both, and the next start copies
// nothing twice and deletes them then. Nothing pending is lost, and a lease or a used link
// moves as it was.
func moveOutbox(ctx context.Context, w, main *sql.DB, mainPath string) error {
	var left int
	for _, t := range movedTables {
		var n int
		if err := main.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+t.name+` LIMIT 1)`).Scan(&n); err != nil {
			return err
		}
		left += n
	}
	if left == 0 {
		return nil
	}
	conn, err := w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS old`, "file:"+(&url.URL{Path: mainPath}).EscapedPath()+"?mode=ro"); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE old`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range movedTables {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO main.`+t.name+`(`+t.cols+`) SELECT `+t.cols+` FROM old.`+t.name); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	mtx, err := main.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer mtx.Rollback()
	for _, t := range movedTables {
		if _, err := mtx.ExecContext(ctx, `DELETE FROM `+t.name); err != nil {
			return err
		}
	}
	return mtx.Commit()
}

// Close closes the outbox file.
func (o *outboxDB) Close() error {
	if o == nil {
		return nil
	}
	return errors.Join(o.c.Close(), o.r.Close(), o.w.Close())
}

// Notify is the notifications' store. The outbox, the messages' ids and the links are in the
// outbox file (see outboxDB), its reads of committed state on that file's readers; the targets
// and the push keys are in the main file, their reads on its readers.
func (db *DB) Notify() notify.Store {
	return db.out.s.WithSettings(db.w, db.r)
}
