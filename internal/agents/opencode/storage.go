package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"os"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, to read OpenCode's database read-only

	"github.com/plandash/plandash/internal/plans"
)

// Bounds on one poll of OpenCode's database.
const (
	maxStorageSessions = 200 // sessions changed since the last poll, read per poll
	maxStorageTodos    = 500 // todos of one session
)

// Storage polls OpenCode's own database (~/.local/share/opencode/opencode.db, OpenCode 1.18),
// read-only, for the sessions changed since the last poll: their directory and title, their
// todo list and what they cost (tokens, cost, model), shown without the plugin or a server to
// follow. Only those tables are read: the file also holds OpenCode's accounts and credentials,
// which plandash never queries. Build it with NewStorage and start it with Run.
type Storage struct {
	path  string
	core  *core
	every time.Duration
	since time.Duration
	now   func() time.Time
	log   *slog.Logger
	mark  int64 // time_updated (ms) of the newest session applied
	warn  string
}

// NewStorage makes a Storage of the database at path applying through apply, polled every 2 s;
// the first poll reads sessions updated in the last since (7 days when zero).
func NewStorage(path string, apply Applier, host string, since time.Duration, log *slog.Logger, now func() time.Time) *Storage {
	return NewStorageFor(nil, path, apply, host, since, log, now)
}

// NewStorageFor is NewStorage for a fork of OpenCode (nil: OpenCode) that keeps the same
// database: Kilo Code's CLI keeps ~/.local/share/kilo/kilo.db, with OpenCode's tables.
func NewStorageFor(fl *Flavor, path string, apply Applier, host string, since time.Duration, log *slog.Logger, now func() time.Time) *Storage {
	if since <= 0 {
		since = 7 * 24 * time.Hour
	}
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	if host == "" {
		host, _ = os.Hostname()
	}
	return &Storage{path: path, core: newCore(fl, apply, nil, host, 0, nil, log), every: 2 * time.Second, since: since, now: now, log: log}
}

// Run polls until ctx ends. The database need not exist yet.
func (s *Storage) Run(ctx context.Context) error {
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	for {
		if err := s.poll(ctx); err != nil && ctx.Err() == nil && err.Error() != s.warn {
			s.warn = err.Error() // once per distinct problem, not every two seconds
			s.log.Warn("opencode storage: not read", "path", s.path, "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// storedSession is one session row as plandash reads it.
type storedSession struct {
	ID, Directory, Title string
	Cost                 float64
	In, Out, Reasoning   int64
	CacheRead, CacheW    int64
	Model                string
	Updated              int64
}

// poll reads the sessions changed since the last poll and applies each.
func (s *Storage) poll(ctx context.Context) error {
	// A regular file only: never a FIFO, and not a link to somewhere else.
	fi, err := os.Lstat(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", s.path)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: s.path}).EscapedPath()+"?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(2000)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if s.mark == 0 {
		s.mark = s.now().Add(-s.since).UnixMilli()
	}
	// A session changes when it does, or when its todo list does.
	rows, err := db.QueryContext(ctx, `SELECT * FROM (SELECT id, directory, title, cost, tokens_input, tokens_output,
		tokens_reasoning, tokens_cache_read, tokens_cache_write, COALESCE(model, ''),
		MAX(time_updated, COALESCE((SELECT MAX(t.time_updated) FROM todo t WHERE t.session_id = s.id), 0)) AS updated
		FROM session s WHERE parent_id IS NULL) WHERE updated > ? ORDER BY updated LIMIT ?`, s.mark, maxStorageSessions)
	if err != nil {
		return err
	}
	var list []storedSession
	for rows.Next() {
		var r storedSession
		if err := rows.Scan(&r.ID, &r.Directory, &r.Title, &r.Cost, &r.In, &r.Out, &r.Reasoning, &r.CacheRead, &r.CacheW, &r.Model, &r.Updated); err != nil {
			rows.Close()
			return err
		}
		list = append(list, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range list {
		todos, err := storedTodos(ctx, db, r.ID)
		if err != nil {
			return err
		}
		s.core.applyBatch(plans.WithTime(ctx, time.UnixMilli(r.Updated)), storedBatch(s.core.fl, r, todos, s.core.host))
		s.mark = r.Updated
	}
	s.warn = ""
	return nil
}

func storedTodos(ctx context.Context, db *sql.DB, sessionID string) ([]Todo, error) {
	rows, err := db.QueryContext(ctx, `SELECT content, status, priority FROM todo WHERE session_id = ? ORDER BY position LIMIT ?`, sessionID, maxStorageTodos)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Todo
	for rows.Next() {
		var t Todo
		if err := rows.Scan(&t.Content, &t.Status, &t.Priority); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// storedBatch is one stored session as ACP messages: the session, its todos, its usage.
func storedBatch(fl *Flavor, r storedSession, todos []Todo, host string) *batch {
	if len(r.ID) > 255 {
		r.ID = r.ID[:255]
	}
	b := newBatch(fl, r.ID, &SessionInfo{ID: r.ID, Directory: clip(r.Directory, 4096), Title: clip(r.Title, 512), Host: host, via: plans.ViaTranscript}, host)
	if len(todos) > 0 {
		for i := range todos {
			todos[i].Content = clip(todos[i].Content, 4096)
		}
		b.todos(todos)
	}
	var m struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal([]byte(r.Model), &m)
	if r.In > 0 || r.Out > 0 {
		// OpenCode keeps the session's totals but not the context's fill: Used stays unreported.
		u := map[string]any{"sessionUpdate": "usage_update", "used": 0, "size": 0,
			"_meta": map[string]any{"plandash": map[string]any{"model": clip(m.ID, 128),
				"inputTokens": max(r.In, 0) + max(r.CacheRead, 0) + max(r.CacheW, 0), "outputTokens": max(r.Out, 0) + max(r.Reasoning, 0)}}}
		if r.Cost > 0 && !math.IsInf(r.Cost, 0) {
			u["cost"] = map[string]any{"amount": r.Cost, "currency": "USD"}
		}
		b.update(u)
	}
	return b
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
