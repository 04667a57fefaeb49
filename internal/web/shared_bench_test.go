package web

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkSharedWriteToPage measures what a person sees: from the moment another process
// writes a plan file (flock, temp file, fsync, rename: sharedplans.Store, as docker-agent does)
// to the moment the page's websocket receives the fragment: the fsnotify watch and its
// debounce, the re-read, the SQLite history insert, rendering and the hub all included. Goal:
// p99 ≤ 250 ms. Run with enough samples for a p99, e.g.
//
//	go test ./internal/web -run '^$' -bench SharedWriteToPage -benchtime 400x
func BenchmarkSharedWriteToPage(b *testing.B) {
	for _, bc := range []struct {
		name, topic, id string
	}{
		{"list", "topic=shared", "sp-bench"},
		{"plan-page", "topic=shared:bench", "sphead-bench"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ts := newSharedServer(b, true, testConfig{})
			c := ts.socket(b, bc.topic)
			// Warm up until the watch is live and the first state has been seen.
			ts.write(b, "bench", "# Bench\n\n- [ ] step 0")
			next(b, c, bc.id)
			content := strings.Repeat("- [x] a step of a realistic plan, with some words in it\n", 40)
			// lat counts from the start of the write (the writer's own fsync included); seen
			// from the moment the write returned, the file in place.
			lat := make([]time.Duration, 0, b.N)
			seen := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				p := ts.write(b, "bench", fmt.Sprintf("# Bench %d\n\n%s", i, content))
				written := time.Now()
				want := `data-revision="` + strconv.Itoa(p.Revision) + `"`
				for {
					f := next(b, c, bc.id)
					if strings.Contains(f.HTML, want) {
						break
					}
				}
				lat = append(lat, time.Since(start))
				seen = append(seen, time.Since(written))
			}
			b.StopTimer()
			slices.Sort(lat)
			slices.Sort(seen)
			pct := func(d []time.Duration, q float64) float64 {
				return float64(d[min(len(d)-1, int(q*float64(len(d))))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(lat, 0.50), "p50-ms")
			b.ReportMetric(pct(lat, 0.99), "p99-ms")
			b.ReportMetric(pct(lat, 1), "max-ms")
			b.ReportMetric(pct(seen, 0.99), "p99-after-write-ms")
		})
	}
}
