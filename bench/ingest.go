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

// ingestCase is one load shape: posters posting batches of batch lines, msgs lines in all,
// spread over sessions sessions. goal is the ratio to the yardstick the issue asks for (0: none).
type ingestCase struct {
	name           string
	batch, posters int
	msgs, sessions int
	mix            bool // plan updates, tool calls and message chunks, not plan updates only
	goal           float64
}

func ingestCases(quick bool) []ingestCase {
	// Batch 1 is the worst case (a commit, an fsync, per message); it gets fewer messages so a
	// run stays short.
	small, big, huge := 2000, 20000, 50000
	if quick {
		small, big, huge = 200, 2000, 5000
	}
	return []ingestCase{
		{name: "batch 1", batch: 1, posters: 1, msgs: small, sessions: 50, goal: 0.9},
		{name: "batch 10", batch: 10, posters: 1, msgs: big / 2, sessions: 50, goal: 0.9},
		{name: "batch 100", batch: 100, posters: 1, msgs: big, sessions: 50, goal: 0.9},
		{name: "batch 1000", batch: 1000, posters: 1, msgs: big, sessions: 50, goal: 0.9},
		// The harder case an independent load tool measured: twice the sessions, so each plan is
		// updated half as often per post, and a longer run.
		{name: "batch 1000, 100 sessions", batch: 1000, posters: 1, msgs: huge, sessions: 100, goal: 0.9},
		{name: "mix, batch 1000, 100 sessions", batch: 1000, posters: 1, msgs: huge, sessions: 100, mix: true, goal: 0.9},
		{name: "mix, batch 1", batch: 1, posters: 1, msgs: small, sessions: 100, mix: true},
		{name: "50 posters, batch 1", batch: 1, posters: 50, msgs: small * 2, sessions: 50, goal: 0.8},
		{name: "50 posters, batch 10", batch: 10, posters: 50, msgs: big / 2, sessions: 50, goal: 0.8},
	}
}

// mixLine is message n of a realistic agent's traffic, spread over sessions sessions: each
// session, in turn, updates its plan, starts a tool call, reports it running and done, then
// streams six chunks of a reply (one in ten lines a plan, three tool calls, six chunks).
func mixLine(sid string, n, sessions int) string {
	k := n / sessions // this session's k-th message
	call := fmt.Sprintf("call-%d", k/10)
	head := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":`, sid)
	switch k % 10 {
	case 0:
		return benchplan.Line(sid, n)
	case 1:
		return head + fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":%q,"title":"Read internal/web/ingest.go","kind":"read","status":"pending",`+
			`"locations":[{"path":"/src/internal/web/ingest.go"}],"rawInput":{"path":"/src/internal/web/ingest.go","limit":400}}}}`, call)
	case 2:
		return head + fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"status":"in_progress"}}}`, call)
	case 3:
		return head + fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"status":"completed",`+
			`"content":[{"type":"content","content":{"type":"text","text":"package web\n\n// ingest serves POST /api/v1/ingest (%d lines read)"}}]}}}`, call, n)
	}
	return head + fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"The handler decodes each line once and commits the batch; chunk %d. "}}}}`, n)
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
		if c.goal > 0 {
			rs := r.ratios()
			r.note = fmt.Sprintf("goal ≥ %s× the yardstick (median of %d runs %s×, range %s): %s",
				num(c.goal), len(rs), num(median(rs)), spread(rs), verdict(median(rs) >= c.goal))
		}
		t.rows = append(t.rows, r)
		fmt.Fprintf(e.log, "ingest %s done\n", c.name)
	}
	t.notes = append(t.notes,
		"CPU is the server process's utime+stime from /proc, 10 ms resolution; plandash also numbers every change for the pages (none is open here, so nothing is rendered)",
		"what each stores: the yardstick appends every line to one table; plandash keeps each session (its row and its last-seen index entry), plan (its row and a delta in its history), tool call and merged reply; both fsync the WAL once per commit (synchronous FULL)",
		"pages written per commit, measured in the WAL for issue 31, not by this run (plandash / yardstick): batch 1 5.3 / 1.2, batch 100 over 50 sessions 56 / 14, batch 1,000 over 50 sessions 120 / 117, over 100 sessions 133 / 117; the mix over 100 sessions 98 / 75. Revisions' bodies are appended in the order they are written and only their small keys are spread by plan (before, a revision went into its plan's part of one table, body and all: 132, 228 and 392 pages at batch 100 and 1,000). The yardstick's pages grow with the bytes posted, plandash's also with the plans touched: why an independent tool (100 sessions, 50,000 messages) once found 0.76× where this table found 1.11× with 50 sessions",
	)
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
			// Several messages per session, so plans are replaced as well as created.
			id := fmt.Sprintf("%s-s%d", sid, n%c.sessions)
			if c.mix {
				b.WriteString(mixLine(id, n, c.sessions))
			} else {
				b.WriteString(benchplan.Line(id, n))
			}
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
