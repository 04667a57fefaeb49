package sharedplans

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/files"
)

// seedPlans writes n plans of about 1 KiB straight to disk (no fsync per file, so setting up
// 10,000 plans stays quick); the files are exactly what Upsert would write.
func seedPlans(b *testing.B, s *Store, n int) {
	b.Helper()
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("- a step of the plan\n", 50)
	for i := range n {
		name := fmt.Sprintf("plan-%05d", i)
		data, err := EncodePlan(Plan{Name: name, Title: "Plan " + name, Content: body, Author: "bench",
			Status: "in-progress", Revision: i%7 + 1, UpdatedAt: fixedStamp})
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.Dir(), name+".json"), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkListPlans10k(b *testing.B) {
	s := newTestStore(b)
	seedPlans(b, s, 10_000)
	ctx := context.Background()
	b.Run("store", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := s.List(ctx)
			if err != nil || len(res.Plans) != 10_000 {
				b.Fatal(len(res.Plans), err)
			}
		}
	})
	b.Run("tool", func(b *testing.B) {
		tool, _ := NewToolset(s, nil).Tool("list_plans")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tool.Call(ctx, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWritePlan measures full durable writes: flock, load, encode, temp file, fsync,
// rename, directory fsync, unlock.
func BenchmarkWritePlan(b *testing.B) {
	content := strings.Repeat("- a step of the plan\n", 50)
	ctx := context.Background()
	b.Run("one-plan", func(b *testing.B) {
		s := newTestStore(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Upsert(ctx, UpsertRequest{Name: "p", Content: &content}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel-plans", func(b *testing.B) {
		s := newTestStore(b)
		var id atomic.Int64
		b.ReportAllocs()
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			name := fmt.Sprintf("p%d", id.Add(1))
			for pb.Next() {
				if _, err := s.Upsert(ctx, UpsertRequest{Name: name, Content: &content}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkWatchLatency measures, per write, the time from the start of the write to the
// watcher's event for it, and reports the p50 and p99.
func BenchmarkWatchLatency(b *testing.B) {
	s := newTestStore(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan Event, 16)
	w, err := s.Watch(ctx, func(e Event) { got <- e })
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cancel(); w.Wait() }()
	content := "x"
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		p, err := s.Upsert(ctx, UpsertRequest{Name: "p", Content: &content})
		if err != nil {
			b.Fatal(err)
		}
		for e := range got {
			if e.Plan.Revision == p.Revision {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	pct := func(q float64) float64 {
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkUpdatePlanFromFile10MiB commits a 10 MiB source file of control characters, the
// worst case for JSON escaping (about 60 MiB on disk), through the update_plan_from_file tool:
// read, lock, load the previous 60 MiB revision, encode, durable write, result.
func BenchmarkUpdatePlanFromFile10MiB(b *testing.B) {
	s := newTestStore(b)
	src := b.TempDir()
	roots, err := files.NewRoots(src)
	if err != nil {
		b.Fatal(err)
	}
	body := make([]byte, MaxContentSize)
	for i := range body {
		body[i] = byte(i % 0x20)
	}
	if err := os.WriteFile(filepath.Join(src, "plan.md"), body, 0o600); err != nil {
		b.Fatal(err)
	}
	tool, _ := NewToolset(s, roots).Tool("update_plan_from_file")
	args := json.RawMessage(`{"name":"big","path":"plan.md","author":"bench"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tool.Call(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}
