package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plandash/plandash/internal/benchplan"
)

// ingestCase is one load shape: posters posting batches of batch lines, msgs lines in all.
type ingestCase struct {
	name           string
	batch, posters int
	msgs           int
}

func ingestCases(quick bool) []ingestCase {
	// Batch 1 is the worst case (a commit, an fsync, per message); it gets fewer messages so a
	// run stays short.
	small, big := 2000, 20000
	if quick {
		small, big = 200, 2000
	}
	return []ingestCase{
		{"batch 1", 1, 1, small},
		{"batch 10", 10, 1, big / 2},
		{"batch 100", 100, 1, big},
		{"batch 1000", 1000, 1, big},
		{"50 posters, batch 1", 1, 50, small * 2},
		{"50 posters, batch 10", 10, 50, big / 2},
	}
}

// benchIngest posts the same NDJSON to plandash's /api/v1/ingest and to a bare
// HTTP+JSON+SQLite server, and reports messages per second and server CPU per message.
func benchIngest(ctx context.Context, e *env) (*table, error) {
	pd, err := e.startPlandash()
	if err != nil {
		return nil, err
	}
	defer pd.stop()
	yard, err := e.startYard("yard-ingest")
	if err != nil {
		return nil, err
	}
	defer yard.stop()
	t := &table{title: "ingest: messages per second, POST → 200 with the batch committed",
		yard: "bare net/http + encoding/json + modernc SQLite (WAL, synchronous FULL, one transaction per post)"}
	for _, c := range ingestCases(e.quick) {
		r := &row{name: c.name, unit: "msgs/s", higherBetter: true}
		for i := range e.runs {
			sid := fmt.Sprintf("r%d-%s", i, strings.ReplaceAll(c.name, " ", ""))
			side := func(s *server, path string, ours bool) func() error {
				return func() error {
					rate, cpu, err := e.ingestLoad(ctx, s, path, c, sid)
					if err != nil {
						return fmt.Errorf("%s %s: %w", s.name, c.name, err)
					}
					if ours {
						r.ours, r.cpuOurs = append(r.ours, rate), append(r.cpuOurs, cpu)
					} else {
						r.yard, r.cpuYard = append(r.yard, rate), append(r.cpuYard, cpu)
					}
					return nil
				}
			}
			if err := pair(i, side(pd, "/api/v1/ingest", true), side(yard, "/ingest", false)); err != nil {
				return nil, err
			}
		}
		t.rows = append(t.rows, r)
		fmt.Fprintf(e.log, "ingest %s done\n", c.name)
	}
	t.notes = append(t.notes, "CPU is the server process's utime+stime from /proc, 10 ms resolution; plandash also renders and announces every change (nobody subscribed here)")
	return t, nil
}

// ingestLoad runs one case against one server: c.posters goroutines each post batches until
// c.msgs lines are sent. The clock starts before the first post and stops after the last
// answer, so connection reuse, decoding and the commit are all inside.
func (e *env) ingestLoad(ctx context.Context, s *server, path string, c ingestCase, sid string) (rate, cpuPerMsg float64, err error) {
	posts := c.msgs / c.batch
	bodies := make([]string, posts)
	for p := range posts {
		var b strings.Builder
		for k := range c.batch {
			n := p*c.batch + k
			// 50 sessions, so plans are replaced as well as created.
			b.WriteString(benchplan.Line(fmt.Sprintf("%s-s%d", sid, n%50), n))
			b.WriteByte('\n')
		}
		bodies[p] = b.String()
	}
	cpu0, err := s.cpu()
	if err != nil {
		return 0, 0, err
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, c.posters)
	start := time.Now()
	for range c.posters {
		wg.Go(func() {
			for {
				p := int(next.Add(1)) - 1
				if p >= posts {
					return
				}
				resp, err := e.post(ctx, s.URL+path, bodies[p])
				var res struct {
					Applied int `json:"applied"`
				}
				if err == nil {
					err = json.Unmarshal(resp, &res)
				}
				if err == nil && res.Applied != c.batch {
					err = fmt.Errorf("applied %d of %d: %.300s", res.Applied, c.batch, resp)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return 0, 0, err
	}
	cpu1, err := s.cpu()
	if err != nil {
		return 0, 0, err
	}
	sent := posts * c.batch
	return float64(sent) / elapsed.Seconds(), cpuPer(cpu0, cpu1, sent), nil
}
