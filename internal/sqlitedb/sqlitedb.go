// Package sqlitedb opens plandash's SQLite file the way every store in it wants: WAL, a long
// busy timeout, full fsync on commit, one writer connection and a small pool of readers.
package sqlitedb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Open opens (creating it and its directory if needed) the database file at path and applies
// schema. w is the only writer (SQLite has one writer at a time anyway; one connection with
// immediate transactions makes writers queue instead of failing with SQLITE_BUSY); r reads.
// synchronous(FULL): what was acknowledged must survive a power cut.
func Open(ctx context.Context, path, schema string) (w, r *sql.DB, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("create data directory: %w", err)
	}
	dsn := func(extra string) string {
		return "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)" +
			"&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)" + extra
	}
	if w, err = sql.Open("sqlite", dsn("&_txlock=immediate")); err != nil {
		return nil, nil, err
	}
	w.SetMaxOpenConns(1)
	if _, err := w.ExecContext(ctx, schema); err != nil {
		w.Close()
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	if r, err = sql.Open("sqlite", dsn("&_pragma=query_only(1)")); err != nil {
		w.Close()
		return nil, nil, err
	}
	r.SetMaxOpenConns(4)
	return w, r, nil
}
