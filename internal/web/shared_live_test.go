package web

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/web/templates"
)

// sharedSocket opens the page socket on topic with the token.
func (ts *testServer) socket(t testing.TB, query string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws?"+query,
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + testToken}}})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(64 << 20) // a browser reads fragments of any size
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// next reads frames until one for id arrives.
func next(t testing.TB, c *websocket.Conn, id string) frame {
	t.Helper()
	return nextAfter(t, c, id, 0)
}

// nextAfter reads frames until one for id newer than seq arrives.
func nextAfter(t testing.TB, c *websocket.Conn, id string, seq uint64) frame {
	t.Helper()
	var got frame
	frames(t, c, "a frame for "+id, func(f frame) bool {
		got = f
		return f.ID == id && (seq == 0 || f.Seq > seq)
	})
	return got
}

// frames hands the socket's frames to until, one by one, until it says it has them all; what
// names what it waits for, for the failure.
func frames(t testing.TB, c *websocket.Conn, what string, until func(frame) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		f := decodeFrame(t, c, b)
		if until(f) {
			return
		}
	}
}

// TestSharedLive: a plan written by another process reaches the list and the plan's page as
// fragments, is recorded in the history, and a reconnecting page catches up.
func TestSharedLive(t *testing.T) {
	ts := newSharedServer(t, true, testConfig{})
	list := ts.socket(t, "topic=shared")
	page := ts.socket(t, "topic=shared:release")

	ts.write(t, "release", "# Step one", "Release", "architect", "draft")
	f := next(t, list, "sp-release")
	if f.Parent != "shared-plans" || f.Seq == 0 || !strings.Contains(f.HTML, "Release") || !strings.Contains(f.HTML, "<h1>Step one</h1>") {
		t.Fatalf("list frame %+v", f)
	}
	first := f.Seq

	ts.write(t, "release", "# Step two")
	if f := nextAfter(t, page, "sphead-release", first); !strings.Contains(f.HTML, `data-revision="2"`) {
		t.Fatalf("head frame %+v", f)
	}
	if f := nextAfter(t, page, "spv-release", first); !strings.Contains(f.HTML, "Step two") {
		t.Fatalf("body frame %+v", f)
	}
	if f := nextAfter(t, page, "sph-release", first); strings.Count(f.HTML, `data-testid="history-entry"`) != 2 {
		t.Fatalf("history frame %+v", f)
	}
	eventually(t, "two recorded revisions", func() bool { return len(ts.historyRevisions(t, "release")) == 2 })

	// A file that cannot be read is shown as such; deleting a plan takes its card away.
	if err := os.WriteFile(filepath.Join(ts.dir, "broken.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if f := next(t, list, "sp-broken"); f.Seq == 0 || !strings.Contains(f.HTML, "is corrupt") {
		t.Fatalf("corrupt frame %+v", f)
	}
	if err := os.Remove(filepath.Join(ts.dir, "release.json")); err != nil {
		t.Fatal(err)
	}
	if f := next(t, list, "sp-release"); f.HTML != "" {
		t.Fatalf("removal frame %+v", f)
	}
	eventually(t, "the removal recorded", func() bool {
		r := ts.historyRevisions(t, "release")
		return len(r) == 3 && r[0] == -1
	})

	// A page rendered at the first change and reconnecting is sent what it missed.
	again := ts.socket(t, "topic=shared&since="+itoa(first))
	if f := next(t, again, "sp-release"); f.HTML != "" {
		t.Fatalf("catch-up frame %+v", f)
	}

	// Topics other than these are still refused.
	code, _, _ := ts.call(t, "GET", "/ws?topic=shared:", "", nil)
	if code != http.StatusBadRequest {
		t.Fatalf("topic shared: answered %d", code)
	}
}

// TestSharedCatchesUpAtStart: plans written while plandash was not running are recorded when
// it starts, and plans it remembers that are gone are recorded as removed.
func TestSharedCatchesUpAtStart(t *testing.T) {
	ts := newSharedServer(t, false, testConfig{})
	ts.write(t, "gone", "x")
	ts.srv.shared.Observe(context.Background(), "gone", "disk")
	if err := os.Remove(filepath.Join(ts.dir, "gone.json")); err != nil {
		t.Fatal(err)
	}
	ts.write(t, "kept", "a")
	ts.write(t, "kept", "b")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { ts.srv.shared.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	eventually(t, "the start-up catch-up", func() bool {
		g, k := ts.historyRevisions(t, "gone"), ts.historyRevisions(t, "kept")
		return len(g) == 2 && g[0] == -1 && len(k) == 1 && k[0] == 2
	})
}

// TestOverviewCatchesUpSharedStrip: a page of the overview that was away while a shared plan
// was created gets the plan's row when it reconnects (the strip is part of the overview's
// catch-up, numbered in the same sequence as sessions).
func TestOverviewCatchesUpSharedStrip(t *testing.T) {
	ts := newSharedServer(t, true, testConfig{})
	since := ts.srv.live.Seq() // what a page rendered now carries
	ts.write(t, "away", "# Made while the page was away")
	eventually(t, "the plan recorded", func() bool { return len(ts.historyRevisions(t, "away")) == 1 })
	c := ts.socket(t, "topic=all&since="+strconv.FormatUint(since, 10))
	if f := next(t, c, templates.SharedRowID("away")); f.Seq <= since || f.Parent != templates.SharedStripID || !strings.Contains(f.HTML, "away") {
		t.Fatalf("catch-up row %+v", f)
	}
}
