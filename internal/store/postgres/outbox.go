package postgres

import (
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/notify/notifysql"
)

// Notify is the notifications' store: outbox, targets, answer links, push keys, on the same
// pool (database/sql over it, which the one SQL implementation speaks). Claims lock rows with
// SKIP LOCKED, so instances sharing the database never send one delivery twice at once.
func (db *DB) Notify() notify.Store {
	return notifysql.New(stdlib.OpenDBFromPool(db.pool.Pool), notifysql.Postgres)
}
