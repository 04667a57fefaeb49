package sqlite

import (
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/notify/notifysql"
)

// Notify is the notifications' store: outbox, targets, answer links, push keys. It uses the
// writer connection: its claims and link uses are writes, and its reads must see them.
func (db *DB) Notify() notify.Store { return notifysql.New(db.w, notifysql.SQLite) }
