// Package sqlite is plandash's embedded store: one SQLite file, opened once per process, holding
// the sessions and plans, the approval gate and the shared-plan history (and, beside it, the
// notifications' outbox in a file of its own: see outboxDB). One DB hands out the
// three stores; they share its writer connection and its readers, so writers queue in one
// place instead of three pools contending for the file's lock.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/sharedplans"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// readers is the size of the read-only pool: enough for a few pages and sockets catching up at
// once; WAL lets them all read while the writer writes.
const readers = 4

// DB is the one handle on plandash's database file. Its stores live as long as it does.
type DB struct {
	w *sql.DB // one connection: SQLite has one writer at a time anyway
	r *readDB // read-only connections, their queries kept prepared
	// out is the notifications' own file beside it (the outbox: see outboxDB).
	out *outboxDB
	// faults classifies and remembers the file's storage failures (a full disk), shared by
	// the stores' writes.
	faults *faults
	// c copies the WAL back into the file outside the writer's commits (see checkpointer).
	c *checkpointer

	plans     *plansStore
	approvals *approvalStore
	history   *historyStore
}

// Open opens the database file at path, creating it (mode 0600) and its directory (0700) if
// needed, and brings its schema up to date. It refuses a database whose schema is newer than
// this binary knows (a SchemaError): a downgrade must not half-understand its data.
//
// Every connection runs in WAL mode with a long busy timeout (other processes, such as a second
// plandash on the same data directory, make it wait rather than fail), synchronous=FULL (what was
// acknowledged must survive a power cut) and foreign keys on. The one writer connection begins
// its transactions IMMEDIATE, so writers queue instead of failing with SQLITE_BUSY when a read
// transaction would have to upgrade.
func Open(ctx context.Context, path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	// SQLite would create the file with 0644 less the umask; the database holds what agents
	// planned and who decided what, so it is created private first. SQLite gives its -wal and
	// -shm files the database file's mode.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	// The writer checkpoints only as a last resort: its checkpointer does, once the file is
	// quiet (see checkpointer).
	// SQLite's own checkpoint ran inside one commit in about two hundred of a single poster's
	// (a message writes about five pages, the threshold is a thousand), waiting for the disk
	// twice while the poster waited, and copied back pages the next commits wrote again: a
	// poster's commits rewrite the same few leaves of each table. A checkpoint changes nothing
	// PRAGMA data_version sees, so the cache of current rows (current.go) stays valid.
	w, err := sql.Open("sqlite", dsn(path, "&_txlock=immediate"+writerCache+writerCheckpoint))
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	fs := &faults{dir: filepath.Dir(path)}
	if err := migrate(ctx, w); err != nil {
		w.Close()
		// SQLite's "disk I/O error (4874)" of a WAL index it cannot grow says nothing of a
		// full disk to whoever starts the server: say it.
		if cause, ok := fs.cause(err); ok {
			return nil, fmt.Errorf("open %s: %s: %w", path, cause, err)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	rdb, err := sql.Open("sqlite", dsn(path, "&_pragma=query_only(1)"))
	if err != nil {
		w.Close()
		return nil, err
	}
	rdb.SetMaxOpenConns(readers)
	// Every reader stays open: a connection database/sql closes as surplus idle (it keeps two
	// by default) takes its prepared statements with it, and the next one parses them again.
	rdb.SetMaxIdleConns(readers)
	r := newReadDB(rdb)
	db := &DB{w: w, r: r, faults: fs, history: &historyStore{w: w, r: r, f: fs}}
	if db.approvals, err = openApprovals(ctx, w, r, fs); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if db.plans, err = openPlans(ctx, w, r, fs); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if db.out, err = openOutbox(ctx, path, w); err != nil {
		db.Close()
		return nil, err
	}
	if db.c, err = startCheckpoints(dsn(path, "")); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// writerCache is the writer's page cache, 16 MB instead of SQLite's 2 MB. A commit touches the
// newest page of each active session's revisions, tool calls and activity; with a hundred agents
// posting that was more than 2 MB, and the writer read back from the file, for every commit,
// the pages it had just evicted (and spilled dirty ones to the WAL early): 600 reads per commit
// of 1,000 mixed messages over 100 sessions, 220 with 16 MB. The cache fills only as far as the
// pages touched.
const writerCache = "&_pragma=cache_size(-16000)"

// dsn is the connection string of every connection to path, with extra parameters appended.
// The pragmas are in the string, not run once, so that each connection the pools open gets them.
func dsn(path, extra string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)" +
		"&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)" + extra
}

// Plans is the store of sessions, plans, tool calls and activity.
func (db *DB) Plans() plans.Store { return db.plans }

// Approvals is the approval gate's store.
func (db *DB) Approvals() approval.Store { return db.approvals }

// SharedHistory is the history of docker-agent's shared plans.
func (db *DB) SharedHistory() sharedplans.HistoryStore { return db.history }

// Close closes the database. The stores must not be used afterwards.
func (db *DB) Close() error {
	if db.plans != nil {
		db.plans.close()
	}
	return errors.Join(db.c.Close(), db.out.Close(), db.r.Close(), db.w.Close())
}
