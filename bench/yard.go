package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the same driver plandash uses
)

// yardMain serves one yardstick: the least code that does the job plandash's figure is about,
// with the same durability (SQLite in WAL mode, synchronous FULL, a transaction per post).
func yardMain(ctx context.Context, kind string, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet(kind, flag.ContinueOnError)
	dir := fs.String("data", "", "data directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("-data is required")
	}
	var h http.Handler
	var closeFn func() error
	switch kind {
	case "yard-ingest", "yard-poll", "yard-overview":
		db, err := openYardDB(ctx, filepath.Join(*dir, "yard.db"))
		if err != nil {
			return err
		}
		closeFn = db.Close
		switch kind {
		case "yard-ingest":
			h = ingestHandler(db)
		case "yard-overview":
			h = overviewHandler(db)
		default:
			h = newPollServer(db)
		}
	case "yard-hub":
		hub, err := newBareHub(filepath.Join(*dir, "hub.log"))
		if err != nil {
			return err
		}
		closeFn = hub.close
		h = hub
	default:
		return fmt.Errorf("unknown yardstick %s", kind)
	}
	defer closeFn()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s on http://%s\n", kind, ln.Addr())
	srv := &http.Server{Handler: h}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// openYardDB opens SQLite as plandash does: WAL, FULL sync, one writer.
func openYardDB(ctx context.Context, path string) (*sql.DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	_, err = db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS updates (id INTEGER PRIMARY KEY, session TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS requests (id TEXT PRIMARY KEY, body TEXT NOT NULL, decision TEXT)`)
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// acpLine is the part of an ACP session/update the yardstick decodes: as much as plandash must
// look at to apply a plan, so the yardstick does not win by not reading.
type acpLine struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string `json:"sessionUpdate"`
			Entries       []struct {
				Content  string `json:"content"`
				Priority string `json:"priority"`
				Status   string `json:"status"`
			} `json:"entries"`
		} `json:"update"`
	} `json:"params"`
}

// ingestHandler takes NDJSON ACP lines, decodes each and inserts them in one transaction per
// post: bare HTTP + JSON + SQLite.
func ingestHandler(db *sql.DB) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 8<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		tx, err := db.BeginTx(r.Context(), nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer tx.Rollback()
		applied := 0
		for line := range strings.Lines(string(body)) {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			var m acpLine
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				continue
			}
			if _, err := tx.ExecContext(r.Context(), `INSERT INTO updates (session, kind, body) VALUES (?, ?, ?)`,
				m.Params.SessionID, m.Params.Update.SessionUpdate, line); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			applied++
		}
		if err := tx.Commit(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"applied":%d,"errors":[]}`, applied)
	})
}
