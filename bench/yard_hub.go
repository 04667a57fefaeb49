package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// bareHub is the fan-out yardstick: a post is decoded, appended to a file and fsynced (stored
// before it is shown, as plandash does), then handed to every socket. Each socket keeps only
// the newest message not yet written, the same coalescing plandash's hub does, so a slow reader
// skips stale states instead of stalling the poster.
type bareHub struct {
	mu   sync.Mutex // guards subs and serialises appends to log
	subs map[*hubSub]struct{}
	log  *os.File
}

type hubSub struct {
	mu     sync.Mutex
	latest []byte
	wake   chan struct{} // 1-buffered: "latest changed"
}

func newBareHub(path string) (*bareHub, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &bareHub{subs: map[*hubSub]struct{}{}, log: f}, nil
}

func (h *bareHub) close() error { return h.log.Close() }

func (h *bareHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == "POST" && r.URL.Path == "/post":
		h.post(w, r)
	case r.URL.Path == "/ws":
		h.socket(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (h *bareHub) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// One line or many (NDJSON, as plandash's ingest takes them): each is decoded; all are
	// stored with one fsync and sent as one message.
	for line := range bytes.Lines(body) {
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		var m acpLine
		if err := json.Unmarshal(line, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, err := h.log.Write(append(body, '\n')); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if err := h.log.Sync(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for s := range h.subs {
		s.mu.Lock()
		s.latest = body
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	io.WriteString(w, `{"applied":1}`)
}

func (h *bareHub) socket(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	s := &hubSub{wake: make(chan struct{}, 1)}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.subs, s)
		h.mu.Unlock()
	}()
	ctx := c.CloseRead(r.Context())
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		s.mu.Lock()
		msg := s.latest
		s.latest = nil
		s.mu.Unlock()
		if msg == nil {
			continue
		}
		if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
			return
		}
	}
}

// pollServer is the decision → waiter yardstick: a request is stored, a waiter long-polls, a
// decision is stored (a transaction, FULL sync) and wakes the waiters.
type pollServer struct {
	db      *sql.DB
	mu      sync.Mutex
	decided map[string]chan struct{} // closed once the request's decision is stored
}

func newPollServer(db *sql.DB) *pollServer {
	return &pollServer{db: db, decided: map[string]chan struct{}{}}
}

func (p *pollServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, action, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/req/"), "/")
	switch {
	case r.Method == "POST" && r.URL.Path == "/req":
		var req struct {
			ID string `json:"id"`
		}
		body, err := io.ReadAll(r.Body)
		if err == nil {
			err = json.Unmarshal(body, &req)
		}
		if err == nil && req.ID == "" {
			err = errors.New("no id")
		}
		if err == nil {
			_, err = p.db.ExecContext(r.Context(), `INSERT INTO requests (id, body) VALUES (?, ?)`, req.ID, string(body))
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.decided[req.ID] = make(chan struct{})
		p.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"status":"pending"}`)
	case r.Method == "POST" && action == "decision":
		body, err := io.ReadAll(r.Body)
		var d struct {
			Action string `json:"action"`
		}
		if err == nil {
			err = json.Unmarshal(body, &d)
		}
		if err == nil {
			_, err = p.db.ExecContext(r.Context(), `UPDATE requests SET decision = ? WHERE id = ? AND decision IS NULL`, d.Action, id)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		if ch, ok := p.decided[id]; ok {
			close(ch)
			delete(p.decided, id)
		}
		p.mu.Unlock()
		io.WriteString(w, `{"status":"decided"}`)
	case r.Method == "GET" && action == "":
		p.mu.Lock()
		ch, ok := p.decided[id]
		p.mu.Unlock()
		if ok {
			select {
			case <-ch:
			case <-time.After(60 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		var dec sql.NullString
		if err := p.db.QueryRowContext(r.Context(), `SELECT decision FROM requests WHERE id = ?`, id).Scan(&dec); err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		status := "pending"
		if dec.Valid {
			status = dec.String
		}
		json.NewEncoder(w).Encode(map[string]string{"id": id, "status": status})
	default:
		http.NotFound(w, r)
	}
}
