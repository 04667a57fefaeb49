package sqlite

import (
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/notify/notifysql"
)

// Notify is the notifications' store: outbox, targets, answer links, push keys. Its writes,
// and the reads that must see a write of its own at once (a link, a secret), use the writer
// connection; the reads of what was committed before them use the readers, so they do not
// hold the one writer that ingest and the gate queue for.
func (db *DB) Notify() notify.Store { return notifysql.New(db.w, notifysql.SQLite).WithReader(db.r.DB) }
