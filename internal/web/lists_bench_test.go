package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkLists is one page of every paged list, through the real router and a real SQLite
// file holding 20,000 sessions (plus a 5,000-call session, a 3,000-revision plan, 30 large
// approval requests and 300 shared plans): what a client pays per page, independent of how much
// is stored. Each sub-benchmark reads the first page and a later one (through its cursor).
func BenchmarkLists(b *testing.B) {
	ts := newSharedServer(b, true, testConfig{}) // the watcher runs: shared lists read its index
	sd := seed(b, ts.testServer, 20_000)
	for i := range 300 {
		ts.write(b, fmt.Sprintf("plan-%03d", i), "# Plan\n- [ ] a step")
	}
	for deadline := time.Now().Add(10 * time.Second); !ts.srv.shared.Indexed(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("the shared plans index never went live")
		}
	}
	hist := "/sessions/" + sd.busy + "/plans/main/history"
	for _, bc := range []struct{ name, path string }{
		{"plans", "/api/v1/plans"},
		{"sessions", "/api/v1/sessions"},
		{"tool-calls", "/api/v1/sessions/" + sd.busy + "/tool-calls"},
		{"approvals", "/api/v1/approvals?limit=5"},
		{"audit", "/api/v1/approvals/audit?limit=10"},
		{"shared-plans", "/api/v1/shared-plans"},
		{"history-api", "/api/v1" + hist},
		{"history-page", hist},
		{"shared-page", "/shared"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			code, link, _ := ts.fetch(b, bc.path)
			if code != http.StatusOK || link == "" && strings.HasPrefix(bc.path, "/api/") {
				b.Fatalf("%s: %d, Link %q", bc.path, code, link)
			}
			later := strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
			if later == "" {
				later = bc.path
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range []string{bc.path, later} {
					if code, _, _ := ts.fetch(b, p); code != http.StatusOK {
						b.Fatalf("%s: %d", p, code)
					}
				}
			}
		})
	}
}
