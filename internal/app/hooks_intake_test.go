package app

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plandash/plandash/internal/metrics/metricstest"
)

// Issue 25, item 15: hook bodies were read up to 16 MiB whatever --max-body said, and the
// queue of events acknowledged but not yet recorded was bounded by count only (160 posts of
// 15.7 MB took the server past 6 GB).

// claudeTodos is a Claude Code PostToolUse of TodoWrite padded to size bytes: a capture event,
// acknowledged at once and recorded right after.
func claudeTodos(session string, size int) []byte {
	event := func(pad string) []byte {
		return []byte(fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":%q,"cwd":"/w","tool_name":"TodoWrite",`+
			`"tool_input":{"todos":[{"content":"pad %s","status":"pending","activeForm":"Padding"}]},"tool_response":{}}`, session, pad))
	}
	return event(strings.Repeat("x", max(size-len(event("")), 0)))
}

// TestHookBodyOverMaxBody: a hook body over --max-body is refused with 413 naming the limit,
// for a capture event and a gate event alike; one under it is taken.
func TestHookBodyOverMaxBody(t *testing.T) {
	const maxBody = 64 << 10
	r := startHookRig(t, maxBody)
	for _, agent := range []string{"claude", "gemini", "codex", "opencode"} {
		code, _, body := r.do(t, context.Background(), r.ingest, "POST", "/api/v1/hooks/"+agent, claudeTodos("big", maxBody+1))
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "--max-body") {
			t.Errorf("%s: a body over --max-body answered %d %s, want 413 naming the limit", agent, code, body)
		}
	}
	if code, _, body := r.do(t, context.Background(), r.ingest, "POST", "/api/v1/hooks/claude", claudeTodos("small", maxBody-1)); code != http.StatusAccepted {
		t.Errorf("a body under --max-body answered %d %s", code, body)
	}
}

// TestHookQueueBoundedInBytes: while the recorder is stuck (another process holds SQLite's
// write lock), capture events are acknowledged until the queue's byte budget (8 bodies of
// --max-body) is full, then answered 503 with Retry-After and counted, instead of piling up;
// once the lock is released, the queue drains and events are taken again.
func TestHookQueueBoundedInBytes(t *testing.T) {
	const maxBody = 64 << 10
	r := startHookRig(t, maxBody)
	db, err := sql.Open("sqlite", filepath.Join(r.data, "plandash.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	locked := true
	unlock := func() {
		if locked {
			locked = false
			if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
				t.Error(err)
			}
		}
	}
	defer unlock()

	const posts = 40 // 40 × 60 KiB: five times the budget
	accepted, busy := 0, 0
	for i := range posts {
		code, h, body := r.do(t, context.Background(), r.ingest, "POST", "/api/v1/hooks/claude", claudeTodos(fmt.Sprintf("q-%d", i), 60<<10))
		switch {
		case code == http.StatusAccepted:
			accepted++
		case code == http.StatusServiceUnavailable && h.Get("Retry-After") != "":
			busy++
		default:
			t.Fatalf("post %d: %d %s (Retry-After %q)", i, code, body, h.Get("Retry-After"))
		}
	}
	if accepted == 0 || accepted > 9 || busy != posts-accepted {
		t.Fatalf("%d accepted and %d answered 503 while nothing could be recorded; want at most the budget (8 bodies, 9 with the one being recorded) accepted, the rest 503", accepted, busy)
	}
	code, _, raw := r.do(t, context.Background(), r.Token, "GET", "/metrics", nil)
	if code != http.StatusOK {
		t.Fatalf("metrics: %d", code)
	}
	s, err := metricstest.Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Value("plandash_hook_busy_total", "agent", "claude"); got != float64(busy) {
		t.Errorf("plandash_hook_busy_total{agent=claude} = %v, want %d", got, busy)
	}

	unlock()
	r.session(t, fmt.Sprintf("claude-code:q-%d", accepted-1), nil) // the queue drains
	r.hook(t, "claude", claudeTodos("after", 1<<10))
	r.session(t, "claude-code:after", nil)
}
