// Package notifysql is the notification store (notify.Store) on SQL: one implementation for
// SQLite and PostgreSQL, whose schema steps the two store packages run in their migrations.
// Times are Unix nanoseconds; 0 is "never". Bodies are JSON text.
package notifysql

// Every step is idempotent (IF NOT EXISTS): a test that takes a database back to an older
// version runs them again.

// SQLiteSchema is the SQLite store's schema step for notifications.
const SQLiteSchema = `
CREATE TABLE IF NOT EXISTS notify_outbox (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	key TEXT NOT NULL UNIQUE,
	target TEXT NOT NULL,
	wait_id TEXT NOT NULL,
	event TEXT NOT NULL,
	wait TEXT NOT NULL,
	due INTEGER NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	status TEXT NOT NULL,
	error TEXT NOT NULL DEFAULT '',
	owner TEXT NOT NULL DEFAULT '',
	lease_until INTEGER NOT NULL DEFAULT 0,
	created INTEGER NOT NULL,
	done INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS notify_outbox_due ON notify_outbox(status, due);
CREATE INDEX IF NOT EXISTS notify_outbox_target ON notify_outbox(target, id);
CREATE INDEX IF NOT EXISTS notify_outbox_wait ON notify_outbox(wait_id, event);
CREATE TABLE IF NOT EXISTS notify_targets (id TEXT PRIMARY KEY, body TEXT NOT NULL, created INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS notify_links (hash TEXT PRIMARY KEY, body TEXT NOT NULL, expires INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS notify_secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
`

// PostgresSchema is the PostgreSQL store's schema step for notifications.
const PostgresSchema = `
CREATE TABLE IF NOT EXISTS notify_outbox (
	id bigserial PRIMARY KEY,
	key text NOT NULL UNIQUE,
	target text NOT NULL,
	wait_id text NOT NULL,
	event text NOT NULL,
	wait text NOT NULL,
	due bigint NOT NULL,
	attempts integer NOT NULL DEFAULT 0,
	status text NOT NULL,
	error text NOT NULL DEFAULT '',
	owner text NOT NULL DEFAULT '',
	lease_until bigint NOT NULL DEFAULT 0,
	created bigint NOT NULL,
	done bigint NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS notify_outbox_due ON notify_outbox(status, due);
CREATE INDEX IF NOT EXISTS notify_outbox_target ON notify_outbox(target, id);
CREATE INDEX IF NOT EXISTS notify_outbox_wait ON notify_outbox(wait_id, event);
CREATE TABLE IF NOT EXISTS notify_targets (id text PRIMARY KEY, body text NOT NULL, created bigint NOT NULL);
CREATE TABLE IF NOT EXISTS notify_links (hash text PRIMARY KEY, body text NOT NULL, expires bigint NOT NULL, used bigint NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS notify_secrets (name text PRIMARY KEY, value bytea NOT NULL);
`

// SQLiteRemote is the SQLite store's step that keeps, per target and wait, the message that
// announced the wait (what the target calls it), so its end can update or clear it.
const SQLiteRemote = `
CREATE TABLE IF NOT EXISTS notify_remote (
	target TEXT NOT NULL,
	wait_id TEXT NOT NULL,
	remote TEXT NOT NULL,
	created INTEGER NOT NULL,
	PRIMARY KEY (target, wait_id)
);
CREATE INDEX IF NOT EXISTS notify_remote_message ON notify_remote(target, remote);
`

// PostgresRemote is the PostgreSQL store's step for the same table.
const PostgresRemote = `
CREATE TABLE IF NOT EXISTS notify_remote (
	target text NOT NULL,
	wait_id text NOT NULL,
	remote text NOT NULL,
	created bigint NOT NULL,
	PRIMARY KEY (target, wait_id)
);
CREATE INDEX IF NOT EXISTS notify_remote_message ON notify_remote(target, remote);
`
