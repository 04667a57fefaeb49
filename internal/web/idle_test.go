package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/plandash/plandash/web/templates"
)

// TestIdleSweep: a session that goes quiet past the idle time is redrawn on the overview as gone,
// though nothing about it was stored; one still active is not announced.
func TestIdleSweep(t *testing.T) {
	clk := &fakeClock{t: time.Now()}
	ts := newTestServer(t, testConfig{Now: clk.Now})
	plan := `{"sessionUpdate":"plan","entries":[{"content":"Step one","priority":"high","status":"pending"}]}`
	ts.ingest(t, update("quiet", plan))
	clk.Add(20 * time.Minute)
	ts.ingest(t, update("busy", plan))
	c := ts.socket(t, "topic=all")
	ctx := context.Background()
	from := ts.srv.plans.Idleness()

	clk.Add(15 * time.Minute) // quiet was last seen 35 minutes ago, busy 15
	from = ts.srv.plans.SweepIdle(ctx, from)
	goneFrame(t, c, "quiet")
	clk.Add(20 * time.Minute) // now busy too; quiet went idle before this window
	ts.srv.plans.SweepIdle(ctx, from)
	goneFrame(t, c, "busy")
	if ids, err := ts.srv.plans.WentIdle(ctx, from, ts.srv.plans.Idleness()); err != nil || len(ids) != 1 || ids[0] != "busy" {
		t.Fatalf("WentIdle of the second window = %v, %v; want busy alone", ids, err)
	}
}

// goneFrame reads the overview's frames until session's group is redrawn as gone. A frame of
// it drawn active may come first: the socket may still get the redraw of the session's last
// update, which the live layer renders after the ingest returned.
func goneFrame(t *testing.T, c *websocket.Conn, session string) {
	t.Helper()
	frames(t, c, session+"'s group redrawn as gone", func(f frame) bool {
		return f.ID == templates.GroupID(session) && strings.Contains(f.HTML, `data-state="gone"`)
	})
}
