package plans_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/sqlite"
)

// BenchmarkApplyBatch1000 is the part of ingest that is plandash's own, without HTTP: decoding
// a batch of 1,000 plan updates to 50 sessions' plans, applying them and committing them to a
// real SQLite file. Its CPU profile and allocations per message are what the ingest goal is
// won or lost on; BenchmarkIngestBatch1000 sets it against the yardstick.
func BenchmarkApplyBatch1000(b *testing.B) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "plandash.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	svc := plans.NewService(db.Plans(), plans.Config{})
	const batch = 1000
	rev := 0
	lines := make([][]byte, batch)
	for b.Loop() {
		b.StopTimer()
		for i := range lines {
			rev++
			lines[i] = []byte(benchLine(fmt.Sprintf("sess-%d", i%50), rev))
		}
		b.StartTimer()
		its := make([]plans.Item, 0, batch)
		for i, line := range lines {
			msgs, err := acp.DecodeLine(line)
			if err != nil {
				b.Fatal(err)
			}
			for _, m := range msgs {
				its = append(its, plans.Item{Line: i + 1, Msg: m})
			}
		}
		res, err := svc.Apply(ctx, plans.NewStream(), its)
		if err != nil || res.Applied != batch {
			b.Fatalf("applied %d of %d: %v", res.Applied, batch, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*batch), "µs/msg")
}
