package app

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/web"
)

// loadWaits is how many waits a burst submits, within loadSpan.
const (
	loadWaits = 1000
	loadSpan  = time.Second
)

// BenchmarkThousandWaits holds the issue's goal "1,000 waits within one second: ingest and
// decision latency stay within 1.2× of a run without notification targets". Each iteration
// runs two whole applications on real SQLite files, in turn (the order alternates, so the
// machine's load falls on both alike): one with no target, one with a webhook, an ntfy topic
// and a Slack webhook on loopback receivers (Slack's answers after 50 ms, as a slow one
// would). On each, 1,000 plans are submitted at the gate at an even pace over one second,
// then each is decided, at the same pace. Ingest is one Gate.Submit (what the HTTP handler
// calls with the agent's request, the commit included), decision one Gate.Decide.
//
// Reports p50 and p99 of both, for each run, and the ratios with/without targets
// (submit-p99-x, decide-p99-x; the goal is ≤ 1.2), and how many notifications the targets
// heard (sent: began and ended ones, coalesced).
func BenchmarkThousandWaits(b *testing.B) {
	var heard sync.Map // path -> count
	count := func(p string) {
		v, _ := heard.LoadOrStore(p, new(int64))
		mu.Lock()
		*v.(*int64)++
		mu.Unlock()
	}
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if strings.HasPrefix(r.URL.Path, "/slack") {
			time.Sleep(50 * time.Millisecond)
		}
		count(r.URL.Path)
	}))
	b.Cleanup(rc.Close)
	var targets []notify.Target
	for i, v := range []string{"webhook+" + rc.URL + "/hook#secret=s", "ntfy+" + rc.URL + "/agents", "slack+" + rc.URL + "/slack"} {
		t, err := notify.ParseFlag(v, i+1)
		if err != nil {
			b.Fatal(err)
		}
		targets = append(targets, t)
	}

	var without, with loadRun
	for i := 0; b.Loop(); i++ {
		runs := []func(){func() { without.add(burst(b, nil)) }, func() { with.add(burst(b, targets)) }}
		if i%2 == 1 {
			slices.Reverse(runs)
		}
		for _, r := range runs {
			r()
		}
	}
	b.StopTimer()
	report := func(name string, r loadRun) {
		b.ReportMetric(q(r.submit, 0.5), name+"submit-p50-us")
		b.ReportMetric(q(r.submit, 0.99), name+"submit-p99-us")
		b.ReportMetric(q(r.decide, 0.5), name+"decide-p50-us")
		b.ReportMetric(q(r.decide, 0.99), name+"decide-p99-us")
	}
	report("none-", without)
	report("targets-", with)
	// The CPU each burst took, the receivers' included (they run in this process): how much
	// of the two cores the notifications take from the gate.
	b.ReportMetric(float64(without.cpu.Milliseconds())/float64(max(without.bursts, 1)), "none-cpu-ms")
	b.ReportMetric(float64(with.cpu.Milliseconds())/float64(max(with.bursts, 1)), "targets-cpu-ms")
	b.ReportMetric(q(with.submit, 0.99)/max(q(without.submit, 0.99), 1), "submit-p99-x")
	b.ReportMetric(q(with.decide, 0.99)/max(q(without.decide, 0.99), 1), "decide-p99-x")
	b.ReportMetric(q(with.submit, 0.5)/max(q(without.submit, 0.5), 1), "submit-p50-x")
	b.ReportMetric(q(with.decide, 0.5)/max(q(without.decide, 0.5), 1), "decide-p50-x")
	var sent int64
	heard.Range(func(_, v any) bool { sent += *v.(*int64); return true })
	b.ReportMetric(float64(sent)/float64(max(b.N, 1)), "sent/op")
}

var mu sync.Mutex

// loadRun is the latencies of the bursts of one kind of run.
type loadRun struct {
	submit, decide []time.Duration
	cpu            time.Duration // the process's CPU time over the bursts, user and system
	bursts         int
}

func (r *loadRun) add(o loadRun) {
	r.submit = append(r.submit, o.submit...)
	r.decide = append(r.decide, o.decide...)
	r.cpu += o.cpu
	r.bursts++
}

// q is the p quantile of ds, in microseconds.
func q(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(float64(len(s))*p))].Microseconds())
}

// burst runs one application with targets, submits loadWaits plans over loadSpan, then
// decides them over loadSpan, and returns the latencies.
func burst(b *testing.B, targets []notify.Target) loadRun {
	data := b.TempDir()
	a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)},
		DataDir: data, Token: "tok", PlansDir: data + "/plans", Notify: targets})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Serve(ctx, ln); close(done) }()
	defer func() { cancel(); <-done }()

	var out loadRun
	cpu0 := cpuTime()
	ids := make([]string, loadWaits)
	paced := func(do func(i int) time.Duration) []time.Duration {
		lat := make([]time.Duration, loadWaits)
		var wg sync.WaitGroup
		start := time.Now()
		for i := range loadWaits {
			if d := time.Until(start.Add(loadSpan * time.Duration(i) / loadWaits)); d > 0 {
				time.Sleep(d)
			}
			wg.Go(func() { lat[i] = do(i) })
		}
		wg.Wait()
		return lat
	}
	out.submit = paced(func(i int) time.Duration {
		t := time.Now()
		r, _, err := a.Gate.Submit(ctx, approval.Submission{Title: "load", Agent: "claude", Timeout: approval.Duration(time.Hour),
			Plan: approval.PlanBody{Type: approval.TypeMarkdown, Markdown: "1. read\n2. write"}})
		if err != nil {
			b.Error(err)
		}
		ids[i] = r.ID
		return time.Since(t)
	})
	out.decide = paced(func(i int) time.Duration {
		t := time.Now()
		if _, err := a.Gate.Decide(ctx, ids[i], approval.DecisionInput{Action: approval.Approve, By: "bench"}); err != nil {
			b.Error(err)
		}
		return time.Since(t)
	})
	out.cpu = cpuTime() - cpu0
	return out
}
