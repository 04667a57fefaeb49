package app

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/internal/live/livetest"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
)

// BenchmarkCrossInstanceFanOut: a plan ingested on A reaches a page on A (local) and a page on
// B (through NOTIFY, then B's own render). It reports the p50 and p99 from the ingest request
// to the fragment on each, and the p99 that crossing instances adds: the goal is under 50 ms.
func BenchmarkCrossInstanceFanOut(b *testing.B) {
	db := pgtest.URL(b)
	a, c := startInstance(b, db), startInstance(b, db)
	pages := map[string]*websocket.Conn{"local": a.socket(b, "session:bench"), "remote": c.socket(b, "session:bench")}

	var mu sync.Mutex
	sent := map[string]time.Time{}
	lat := map[string][]time.Duration{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for name, page := range pages {
		wg.Go(func() {
			var held livetest.Page
			for {
				_, msg, err := page.Read(ctx)
				if err != nil {
					return
				}
				now := time.Now()
				f, err := held.Read(msg)
				if err != nil {
					continue
				}
				i := strings.Index(f.HTML, "step-")
				if i < 0 {
					continue
				}
				marker := f.HTML[i : i+len("step-")+8]
				mu.Lock()
				if t0, ok := sent[marker]; ok {
					lat[name] = append(lat[name], now.Sub(t0))
				}
				mu.Unlock()
			}
		})
	}
	b.ResetTimer()
	for i := range b.N {
		marker := fmt.Sprintf("step-%08d", i)
		mu.Lock()
		sent[marker] = time.Now()
		mu.Unlock()
		req, _ := http.NewRequest("POST", a.URL+"/api/v1/ingest", strings.NewReader(planLine("bench", marker)))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		time.Sleep(5 * time.Millisecond) // a pace pages keep up with: coalescing would skip samples
	}
	time.Sleep(200 * time.Millisecond) // the last fragments
	b.StopTimer()
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	p := func(ds []time.Duration, q float64) float64 {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) / 1000
	}
	for _, name := range []string{"local", "remote"} {
		b.ReportMetric(p(lat[name], 0.5), name+"-p50-ms")
		b.ReportMetric(p(lat[name], 0.99), name+"-p99-ms")
	}
	b.ReportMetric(p(lat["remote"], 0.99)-p(lat["local"], 0.99), "added-p99-ms")
	b.ReportMetric(float64(len(lat["remote"])), "remote-samples")
}
