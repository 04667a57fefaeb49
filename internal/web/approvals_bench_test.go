package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
)

// BenchmarkApprovalInbox1000 renders the inbox with 1,000 pending requests (and 50 recent
// decisions) through the real handler: the goal is 50 ms of server time.
func BenchmarkApprovalInbox1000(b *testing.B) {
	ts := newTestServer(b, testConfig{User: "ann"})
	ctx := context.Background()
	for i := range 1050 {
		r, _, err := ts.srv.gate.Submit(ctx, approval.Submission{
			Title: fmt.Sprintf("Plan %d: refactor the module", i), Agent: "claude", SessionID: fmt.Sprintf("s%d", i%20),
			Plan: approval.PlanBody{Type: approval.TypeItems, Entries: []plans.Entry{
				{Content: "Read the code"}, {Content: "Change it"}, {Content: "Test it"}, {Content: "Review"}, {Content: "Ship"}}},
		})
		if err != nil {
			b.Fatal(err)
		}
		if i >= 1000 {
			if _, err := ts.srv.gate.Decide(ctx, r.ID, approval.DecisionInput{Action: approval.Approve, By: "ann"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	req := httptest.NewRequest("GET", "http://127.0.0.1/approvals", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	h := ts.srv.Handler()
	b.ResetTimer()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 || !strings.Contains(w.Body.String(), "Plan 999:") {
			b.Fatalf("inbox: %d", w.Code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/render")
}

// BenchmarkApprovalWakeup measures, over loopback HTTP, the time from sending a decision to a
// long-polling client having its answer; the goal is a p99 of 10 ms.
func BenchmarkApprovalWakeup(b *testing.B) {
	ts := newTestServer(b, testConfig{User: "ann"})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	do := func(method, path, body string) {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			b.Fatalf("%s %s: %s", method, path, resp.Status)
		}
	}
	var lat []time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		r, _, err := ts.srv.gate.Submit(context.Background(), approval.Submission{Title: "t",
			Plan: approval.PlanBody{Type: approval.TypeItems, Entries: []plans.Entry{{Content: "a"}}}})
		if err != nil {
			b.Fatal(err)
		}
		woke := make(chan time.Time, 1)
		go func() {
			do("GET", "/api/v1/approvals/"+r.ID+"?wait=60s", "")
			woke <- time.Now()
		}()
		for ts.srv.gate.Waiting(r.ID) == 0 {
			time.Sleep(50 * time.Microsecond)
		}
		b.StartTimer()
		start := time.Now()
		do("POST", "/api/v1/approvals/"+r.ID+"/decision", `{"action":"approve"}`)
		lat = append(lat, (<-woke).Sub(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*50/100].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}
