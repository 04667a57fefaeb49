package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Issue 31 §4: memory has a goal. Peak resident memory with 1,000 active sessions, 100 open
// pages and 200 updates/s, with the default settings, beside the bare hub's under the same load;
// and resident memory back within 20 % of its idle level within a minute of the load stopping.
const (
	memGoalMB     = 120
	memReturnFrac = 1.2 // of the idle level
	memPlansPer   = 6   // plans per session: a full group on the overview
)

// memLine is one ACP plan update of plan planID of session sid; rev is written into an entry,
// so every update changes what the plan shows.
func memLine(sid string, planID, rev int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"plan-%d","entries":[`+
		`{"content":"Read the handler and its tests","priority":"high","status":"completed"},`+
		`{"content":"Add the rate limiter, step %d","priority":"medium","status":"in_progress"},{"content":"Write table-driven tests","priority":"medium","status":"pending"},`+
		`{"content":"Update the docs","priority":"low","status":"pending"},{"content":"Ship it","priority":"low","status":"pending"}]}}}}`, sid, planID, rev)
}

// memResult is one side's run: resident memory idle (sessions stored, pages open, no updates),
// at its peak, and how long it took to come back within memReturnFrac of idle after the load
// (negative when it had not within the watch).
type memResult struct {
	idle, peak, after float64 // MB
	back              time.Duration
	posted, failed    int
}

func benchMemory(ctx context.Context, e *env) (*table, error) {
	sessions, pages, rate := 1000, 100, 200
	load, watch := 30*time.Second, 60*time.Second
	if e.quick {
		sessions, load, watch = 100, 3*time.Second, 5*time.Second
	}
	t := &table{title: fmt.Sprintf("memory: %d active sessions of %d plans, %d open pages, %d updates/s for %s (a fresh server per run)", sessions, memPlansPer, pages, rate, load),
		yard: "the bare hub (yard-hub) under the same posts, its 100 sockets sent every update"}
	peak := &row{name: "peak RSS", unit: "MB"}
	idle := &row{name: "idle RSS (before the load)", unit: "MB"}
	after := &row{name: "RSS when back within 20 % of idle, or at the end of the watch", unit: "MB"}
	var back []float64 // plandash's seconds back within memReturnFrac of idle, per run
	var notes []string
	for i := range e.runs {
		side := func(ours bool) func() error {
			return func() error {
				var s *server
				var err error
				if ours {
					s, err = e.startPlandash()
				} else {
					s, err = e.startYard("yard-hub")
				}
				if err != nil {
					return err
				}
				defer s.stop()
				res, err := e.memLoad(ctx, s, ours, sessions, pages, rate, load, watch)
				if err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
				if ours {
					b := res.back.Seconds()
					if res.back < 0 {
						b = watch.Seconds()
					}
					peak.ours, idle.ours, after.ours, back = append(peak.ours, res.peak), append(idle.ours, res.idle), append(after.ours, res.after), append(back, b)
				} else {
					peak.yard, idle.yard, after.yard = append(peak.yard, res.peak), append(idle.yard, res.idle), append(after.yard, res.after)
				}
				returned := fmt.Sprintf("back within %.0f %% of idle after %.1f s", (memReturnFrac-1)*100, res.back.Seconds())
				if res.back < 0 {
					returned = fmt.Sprintf("NOT back within %.0f %% of idle after %s", (memReturnFrac-1)*100, watch)
				}
				notes = append(notes, fmt.Sprintf("%s run %d: %d updates posted (%d failed); idle %.1f MB, peak %.1f MB, %s (%.1f MB)",
					s.name, i+1, res.posted, res.failed, res.idle, res.peak, returned, res.after))
				return nil
			}
		}
		if err := pair(i, side(true), side(false)); err != nil {
			return nil, err
		}
		fmt.Fprintf(e.log, "memory run %d done\n", i+1)
	}
	t.rows = append(t.rows, peak, idle, after)
	peakMet, backMet := true, true
	for i := range peak.ours {
		peakMet = peakMet && peak.ours[i] <= memGoalMB
		backMet = backMet && back[i] < watch.Seconds() && after.ours[i] <= idle.ours[i]*memReturnFrac
	}
	t.notes = append(t.notes,
		fmt.Sprintf("goal: peak RSS ≤ %d MB in every run: plandash %s MB (the bare hub %s MB): %s", memGoalMB, spread(peak.ours), spread(peak.yard), verdict(peakMet)),
		fmt.Sprintf("goal: RSS back within %.0f %% of idle within %s of the load stopping, every run: plandash back after %s s: %s", (memReturnFrac-1)*100, watch, spread(back), verdict(backMet)))
	t.notes = append(t.notes, notes...)
	settings := "its defaults (neither GOGC nor GOMEMLIMIT set)"
	if g, m := os.Getenv("GOGC"), os.Getenv("GOMEMLIMIT"); g != "" || m != "" {
		settings = fmt.Sprintf("GOGC=%q GOMEMLIMIT=%q from bench's environment: NOT the default settings the goal is about", g, m)
	}
	t.notes = append(t.notes, "RSS is VmRSS, peak VmHWM, from /proc/<pid>/status; plandash runs with "+settings)
	return t, nil
}

var groupIDRE = regexp.MustCompile(`<section id="(s-[^"]+)"[^>]*data-testid="session-group"`)

// memLoad stores memPlansPer plans for each of sessions, opens pages pages (plandash: half
// overviews, half session pages, each loaded then followed by its socket as a browser does;
// the bare hub: sockets sent every post), reads idle memory, posts one plan update at a time at
// rate for load, then watches memory come back for up to watch.
func (e *env) memLoad(ctx context.Context, s *server, ours bool, sessions, pages, rate int, load, watch time.Duration) (memResult, error) {
	var res memResult
	sid := func(k int) string { return fmt.Sprintf("mem-%04d", k) }
	postURL := s.URL + "/post"
	if ours {
		postURL = s.URL + "/api/v1/ingest"
	}
	// Stored in batches of a hundred lines (one transaction, one fsync each, on both sides).
	var batch strings.Builder
	for k := range sessions {
		for p := range memPlansPer {
			batch.WriteString(memLine(sid(k), p, 0))
			batch.WriteByte('\n')
		}
		if (k+1)%16 == 0 || k == sessions-1 {
			if _, err := e.post(ctx, postURL, batch.String()); err != nil {
				return res, fmt.Errorf("storing the sessions: %w", err)
			}
			batch.Reset()
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for i := range pages {
		ws := s.wsURL("/ws")
		if ours {
			path, topic := "/", "all"
			if i%2 == 1 {
				id := sid(i * sessions / pages)
				path, topic = "/sessions/"+id, "session:"+id
			}
			body, err := e.get(ctx, s.URL+path)
			if err != nil {
				return res, err
			}
			var shows []string
			for _, m := range groupIDRE.FindAllStringSubmatch(body, -1) {
				shows = append(shows, m[1])
			}
			ws = s.wsURL("/ws?topic=" + topic + "&since=" + pageSeq(body))
			if len(shows) > 0 {
				ws += "&shows=" + strings.Join(shows, ",")
			}
		}
		c, err := dialSocket(ctx, ws)
		if err != nil {
			return res, fmt.Errorf("dial: %w", err)
		}
		wg.Go(func() {
			defer c.CloseNow()
			buf := make([]byte, 32<<10)
			for {
				_, r, err := c.Reader(ctx)
				if err != nil {
					return
				}
				if _, err := io.CopyBuffer(io.Discard, r, buf); err != nil {
					return
				}
			}
		})
	}
	if err := settle(ctx); err != nil {
		return res, err
	}
	var err error
	if res.idle, err = procMB(s, "VmRSS"); err != nil {
		return res, err
	}
	// The load: one update per tick, each to the next session in turn and to its plans in turn,
	// at most 16 posts in flight so a slow answer does not lower the rate.
	var mu sync.Mutex
	sem := make(chan struct{}, 16)
	var posts sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(rate))
	for k, end := 0, time.Now().Add(load); time.Now().Before(end); k++ {
		<-tick.C
		sem <- struct{}{}
		line := memLine(sid(k%sessions), (k/sessions)%memPlansPer, k+1)
		posts.Go(func() {
			defer func() { <-sem }()
			_, err := e.post(ctx, postURL, line)
			mu.Lock()
			res.posted++
			if err != nil {
				res.failed++
			}
			mu.Unlock()
		})
	}
	tick.Stop()
	posts.Wait()
	if res.peak, err = procMB(s, "VmHWM"); err != nil {
		return res, err
	}
	stopped := time.Now()
	res.back = -1
	for time.Since(stopped) < watch {
		if res.after, err = procMB(s, "VmRSS"); err != nil {
			return res, err
		}
		if res.after <= res.idle*memReturnFrac {
			res.back = time.Since(stopped)
			break
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return res, nil
}

var seqRE = regexp.MustCompile(`data-seq="(\d+)"`)

// pageSeq is the change number a page was rendered at, which its socket catches up from.
func pageSeq(body string) string {
	if m := seqRE.FindStringSubmatch(body); m != nil {
		return m[1]
	}
	return "0"
}

// get GETs url with the bench token and returns the answer.
func (e *env) get(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return "", err
	}
	b, err := e.do(req)
	return string(b), err
}

// procMB reads field (VmRSS, VmHWM) of the server's /proc/<pid>/status, in MB.
func procMB(s *server, field string) (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, s.cmd.Process.Pid)
}
