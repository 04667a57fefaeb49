package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/web"
)

// BenchmarkWaitToWebhook measures how long a loopback webhook waits to hear that a plan began
// to wait at the gate, beside a bare Go HTTP client posting the same body to the same
// receiver in the same run. Each wait is decided once heard, so the list stays short.
//
// "Wait begins" is measured from two points, both reported:
//   - p50-us, p99-us: from the call to Gate.Submit, the domain call the HTTP handler makes
//     once it has decoded the agent's request. This is the agent's request reaching plandash,
//     less the HTTP parsing that the bare client's own request also pays at its receiver; it
//     includes the gate's commit of the request (a wait that is not stored has not begun:
//     nothing is shown or announced that was not stored).
//   - stored-p50-us, stored-p99-us: from the moment the list of waits hears of it (its
//     OnChange, called right after the gate's commit): plandash's own notification path —
//     list read, one outbox commit (the row stored already leased, with its links), the POST.
//
// Ratios to the bare client's p99: p99-x-bare and stored-p99-x-bare. On SQLite with
// synchronous=FULL each commit is an fsync, so the ratio mostly measures the disk.
//
// Both clocks stop when the receiver has read the whole body, before it looks at it, and the
// bare client posts the very body and headers plandash's last announcement carried: the
// receiver's own work (decoding the JSON to tell the requests apart) is in neither figure.
// Each wait is decided once heard, and its end's notification received, before the bare
// client posts: neither runs beside the other's work.
func BenchmarkWaitToWebhook(b *testing.B) {
	type arrival struct {
		id string
		at time.Time
	}
	heard := make(chan arrival, 16)
	var (
		mu       sync.Mutex
		lastBody []byte      // the body of the last announcement received
		lastHead http.Header // and its headers
	)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		at := time.Now()
		if r.Header.Get("X-Bare") != "" {
			heard <- arrival{"bare", at}
			return
		}
		var body notify.WebhookBody
		err := json.Unmarshal(raw, &body)
		if err == nil && body.Event == "wait.began" && len(body.Waits) == 1 {
			mu.Lock()
			lastBody, lastHead = raw, r.Header.Clone()
			mu.Unlock()
			heard <- arrival{body.Waits[0].ID, at}
		} else if err == nil && body.Event == "wait.ended" && len(body.Waits) == 1 {
			heard <- arrival{"ended " + body.Waits[0].ID, at}
		}
	}))
	b.Cleanup(rc.Close)
	target, err := notify.ParseFlag("webhook+"+rc.URL+"/hook#secret=s", 1)
	if err != nil {
		b.Fatal(err)
	}
	data := b.TempDir()
	a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)},
		DataDir: data, Token: "tok", PlansDir: data + "/plans", Notify: []notify.Target{target}})
	if err != nil {
		b.Fatal(err)
	}
	var stored sync.Map // wait id -> when the list heard it began
	a.Waits.OnChange(func(c waits.Change) {
		if c.Began != "" && c.ID != "" {
			stored.LoadOrStore(c.ID, time.Now())
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Serve(ctx, ln); close(done) }()
	b.Cleanup(func() { cancel(); <-done })

	var notified, fromStored, bare []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		r, _, err := a.Gate.Submit(ctx, approval.Submission{Title: "bench", Agent: "claude",
			Plan: approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "1. read\n2. write"}})
		if err != nil {
			b.Fatal(err)
		}
		got := <-heard
		for got.id != "plan-"+r.ID {
			got = <-heard
		}
		heardAt := got.at
		notified = append(notified, heardAt.Sub(start))
		b.StopTimer()
		if at, ok := stored.LoadAndDelete("plan-" + r.ID); ok {
			fromStored = append(fromStored, heardAt.Sub(at.(time.Time)))
		}
		if _, err := a.Gate.Decide(ctx, r.ID, approval.DecisionInput{Action: approval.Approve, By: "bench"}); err != nil {
			b.Fatal(err)
		}
		// The end's notification is sent before the bare client posts: the two do not run at
		// once, and the next wait begins with the notifier idle, as a wait that begins alone.
		for got.id != "ended plan-"+r.ID {
			got = <-heard
		}
		mu.Lock()
		payload, head := lastBody, lastHead
		mu.Unlock()
		b.StartTimer()
		start = time.Now()
		req, _ := http.NewRequest("POST", rc.URL+"/hook", bytes.NewReader(payload))
		for k, v := range head {
			if k != "Content-Length" && k != "Accept-Encoding" { // the transport sets these itself
				req.Header[k] = v
			}
		}
		req.Header.Set("X-Bare", "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		got = <-heard
		for got.id != "bare" {
			got = <-heard
		}
		bare = append(bare, got.at.Sub(start))
	}
	b.StopTimer()
	q := func(ds []time.Duration, p float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(float64(len(s))*p))].Microseconds())
	}
	b.ReportMetric(q(notified, 0.5), "p50-us")
	b.ReportMetric(q(notified, 0.99), "p99-us")
	b.ReportMetric(q(bare, 0.5), "bare-p50-us")
	b.ReportMetric(q(bare, 0.99), "bare-p99-us")
	b.ReportMetric(q(fromStored, 0.5), "stored-p50-us")
	b.ReportMetric(q(fromStored, 0.99), "stored-p99-us")
	b.ReportMetric(q(notified, 0.99)/max(q(bare, 0.99), 1), "p99-x-bare")
	b.ReportMetric(q(fromStored, 0.99)/max(q(bare, 0.99), 1), "stored-p99-x-bare")
}
