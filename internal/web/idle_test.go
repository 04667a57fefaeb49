package web

import (
	"context"
	"strings"
	"testing"
	"time"

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
	f := next(t, c, templates.GroupID("quiet"))
	if !strings.Contains(f.HTML, `data-state="gone"`) {
		t.Fatalf("quiet's group after the idle time: %.300s", f.HTML)
	}
	clk.Add(20 * time.Minute) // now busy too; quiet went idle before this window
	ts.srv.plans.SweepIdle(ctx, from)
	if f := next(t, c, templates.GroupID("busy")); !strings.Contains(f.HTML, `data-state="gone"`) {
		t.Fatalf("busy's group after the idle time: %.300s", f.HTML)
	}
	if ids, err := ts.srv.plans.WentIdle(ctx, from, ts.srv.plans.Idleness()); err != nil || len(ids) != 1 || ids[0] != "busy" {
		t.Fatalf("WentIdle of the second window = %v, %v; want busy alone", ids, err)
	}
}
