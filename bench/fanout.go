package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plandash/plandash/internal/benchplan"
	"github.com/plandash/plandash/web/templates"
)

// The socket readers are the measuring instrument, and on a small machine they share its cores
// with the server measured: they must cost little per message, or the larger message (plandash
// sends a rendered group, the bare hub the post) is measured as the slower server. Each reader
// reads into one reused buffer and scans it without a regular expression (benchplan.NewestRev). With a fresh message
// per read and a regexp, the readers took frames the server had written up to 15 ms late (a
// trace of both ends showed it), and that was most of plandash's p99 at 100 sockets.

// fanResult is one fan-out run: the latency of every (socket, update) pair.
type fanResult struct {
	lat       []time.Duration
	missing   int // pairs whose socket never held a state this new
	coalesced int // pairs covered by a newer update's message instead of their own
	reloads   int // messages without a revision newer than the socket held (reload, counts, …)
	// post and after split the median latency: the POST's own time, and from its answer to
	// the socket holding the update.
	post, after time.Duration
	cpuPerMsg   float64
	// perSocket is the bytes a socket was sent per timed update (message payloads, all
	// messages of the timed phase over sockets × updates).
	perSocket float64
}

// Issue 31 §2: a one-entry change to one plan of a six-plan session costs at most cardGoal
// bytes per socket; fan-out p99 at 100 sockets at most sameSizeGoal× the bare hub sending
// frames of the same size, and ownLinesGoal× the bare hub sending its own lines.
const (
	cardGoal     = 1200
	sameSizeGoal = 1.2
	ownLinesGoal = 1.5
	groupPlans   = 6
)

// benchFanOut measures, for every update and every socket, the time from the start of the
// POST to the socket holding a state at least as new as that update. A socket that skips an
// update because a newer one arrived counts that update as delivered when the newer one did
// (coalescing is the design), never as free; an update a socket never covers is reported.
func benchFanOut(ctx context.Context, e *env) (*table, error) {
	pd, err := e.startPlandash()
	if err != nil {
		return nil, err
	}
	defer pd.stop()
	yard, err := e.startYard("yard-hub")
	if err != nil {
		return nil, err
	}
	defer yard.stop()
	// issue 11: 1,000 sockets keep up at 200 updates/s. A socket's delays move together with the
	// update's, so p99 is about the updates: of 1,000 it is the tenth-worst, steadier across runs
	// than the third-worst of 300.
	updates, rate := 1000, 200
	if e.quick {
		updates = 40
	}
	t := &table{title: fmt.Sprintf("fan-out: POST start → socket holds a state at least as new (%d updates at %d/s)", updates, rate),
		yard: "bare coder/websocket hub: decode, append + fsync per post, newest-only slot per socket"}
	for _, sockets := range []int{100, 1000} {
		p50 := &row{name: fmt.Sprintf("%d sockets p50", sockets), unit: "ms"}
		p99 := &row{name: fmt.Sprintf("%d sockets p99", sockets), unit: "ms"}
		// At 100 sockets the bare hub runs a second time, each post padded to the bytes per
		// socket plandash sent in the same run: the same fan-out, frames of the same size.
		same := &row{name: fmt.Sprintf("%d sockets p99, bare hub sending frames of plandash's size", sockets), unit: "ms"}
		wire := &row{name: "bytes per socket per update", unit: "B"}
		var notes []string
		for i := range e.runs {
			var pad int // the size the padded yardstick sends: plandash's bytes per socket
			side := func(s *server, ours bool) func() error {
				return func() error {
					sid := fmt.Sprintf("fan-%d-%d", sockets, i)
					post, ws := s.URL+"/post", s.wsURL("/ws")
					if ours {
						// As an overview that shows the session's group says when it connects.
						post, ws = s.URL+"/api/v1/ingest", s.wsURL("/ws?topic=all&shows="+templates.GroupID(sid))
					}
					res, err := e.fanLoad(ctx, s, post, ws, sid, sockets, updates, rate, ours, 0)
					if err != nil {
						return fmt.Errorf("%s: %w", s.name, err)
					}
					q50, q99 := quantileMS(res.lat, 0.50), quantileMS(res.lat, 0.99)
					if ours {
						p50.ours, p99.ours, p99.cpuOurs = append(p50.ours, q50), append(p99.ours, q99), append(p99.cpuOurs, res.cpuPerMsg)
						same.ours, wire.ours = append(same.ours, q99), append(wire.ours, res.perSocket)
						pad = int(res.perSocket)
					} else {
						wire.yard = append(wire.yard, res.perSocket)
						p50.yard, p99.yard, p99.cpuYard = append(p50.yard, q50), append(p99.yard, q99), append(p99.cpuYard, res.cpuPerMsg)
					}
					notes = append(notes, fmt.Sprintf("%s run %d: %d pairs, %d coalesced, %d never covered, %d other messages; p50 POST %.2f ms, answer → socket %.2f ms",
						s.name, i+1, len(res.lat)+res.missing, res.coalesced, res.missing, res.reloads, ms(res.post), ms(res.after)))
					if res.missing > 0 {
						p99.note = "SOME UPDATES NEVER REACHED A SOCKET (see notes)"
					}
					return nil
				}
			}
			if err := pair(i, side(pd, true), side(yard, false)); err != nil {
				return nil, err
			}
			if sockets != 100 {
				continue
			}
			res, err := e.fanLoad(ctx, yard, yard.URL+"/post", yard.wsURL("/ws"), fmt.Sprintf("fan-pad-%d", i), sockets, updates, rate, false, pad)
			if err != nil {
				return nil, fmt.Errorf("yard-hub padded to %d B: %w", pad, err)
			}
			same.yard = append(same.yard, quantileMS(res.lat, 0.99))
			notes = append(notes, fmt.Sprintf("yard-hub run %d, posts of %d B (a short plan update, padded): %d pairs, %d coalesced, %d never covered; %.0f B per socket per update",
				i+1, pad, len(res.lat)+res.missing, res.coalesced, res.missing, res.perSocket))
		}
		t.rows = append(t.rows, p50, p99)
		if sockets == 100 {
			t.rows = append(t.rows, same, wire)
			t.notes = append(t.notes,
				fmt.Sprintf("goal: a one-entry change to one plan of a %d-plan session ≤ %d B per socket: plandash %s B: %s", groupPlans, cardGoal, spread(wire.ours), verdict(slices.Max(wire.ours) <= cardGoal)),
				fmt.Sprintf("goal: %d sockets p99 ≤ %.1f× the bare hub sending frames of plandash's size: %s× (runs %s): %s", sockets, sameSizeGoal, num(median(same.ratios())), spread(same.ratios()), verdict(slices.Max(same.ratios()) <= sameSizeGoal)),
				fmt.Sprintf("goal: %d sockets p99 ≤ %.1f× the bare hub sending its own %.1f KB lines: %s× (runs %s): %s", sockets, ownLinesGoal, median(wire.yard)/1000, num(median(p99.ratios())), spread(p99.ratios()), verdict(slices.Max(p99.ratios()) <= ownLinesGoal)))
		}
		t.notes = append(t.notes, notes...)
		ourRSS, err := pd.peakRSS()
		if err != nil {
			return nil, err
		}
		yardRSS, err := yard.peakRSS()
		if err != nil {
			return nil, err
		}
		t.notes = append(t.notes, fmt.Sprintf("peak resident memory after the %d-socket runs: plandash %.0f MB, yard-hub %.0f MB", sockets, ourRSS, yardRSS))
		fmt.Fprintf(e.log, "fanout %d sockets done\n", sockets)
	}
	t.notes = append(t.notes, "CPU column: server µs per update posted (all sockets' sends included); posts are sequential, so a slow POST lowers the rate")
	return t, nil
}

// fanLoad connects sockets subscribers, warms up until each has seen a state, then posts
// updates one at a time at rate per second and waits for every socket to hold the last one.
// For plandash (ours) the session has groupPlans plans, the one updated and others as the
// overview shows them beside it; a pad above zero pads every post with spaces to pad bytes.
func (e *env) fanLoad(ctx context.Context, s *server, postURL, wsURL, sid string, sockets, updates, rate int, ours bool, pad int) (fanResult, error) {
	var res fanResult
	line := func(rev int) string {
		if pad <= 0 {
			return benchplan.Line(sid, rev)
		}
		// The least plan update that says its revision, padded: frames as small as plandash's
		// when those are smaller than the bare hub's own lines.
		l := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"plan","entries":[{"content":"rev-%06d"}]}}}`, sid, rev)
		return l + strings.Repeat(" ", max(0, pad-len(l)))
	}
	if _, err := e.post(ctx, postURL, line(0)); err != nil {
		return res, err
	}
	if ours {
		var others strings.Builder
		for p := 1; p < groupPlans; p++ {
			others.WriteString(planUpdateLine(sid, p) + "\n")
		}
		if _, err := e.post(ctx, postURL, others.String()); err != nil {
			return res, err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	const maxWarm = 200 // warm-up updates at most: revisions 1..maxWarm
	total := maxWarm + updates + 1
	arrival := make([][]time.Time, sockets) // arrival[s][k]: when socket s first held update k
	seen := make([]atomic.Int64, sockets)   // newest revision socket s holds
	var other, received atomic.Int64
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	dialErr := make(chan error, sockets)
	sem := make(chan struct{}, 32) // dial a few at a time: a thousand at once is a SYN flood
	for i := range sockets {
		arrival[i] = make([]time.Time, total)
		sem <- struct{}{}
		c, err := dialSocket(ctx, wsURL)
		<-sem
		if err != nil {
			dialErr <- err
			break
		}
		wg.Go(func() {
			defer c.CloseNow()
			var msg bytes.Buffer
			for {
				_, r, err := c.Reader(ctx)
				if err != nil {
					return
				}
				msg.Reset()
				if _, err := msg.ReadFrom(r); err != nil {
					return
				}
				now := time.Now()
				received.Add(int64(msg.Len()))
				newest := benchplan.NewestRev(msg.Bytes())
				old := seen[i].Load()
				if newest <= old || newest >= int64(total) {
					other.Add(1)
					continue
				}
				for k := old + 1; k <= newest; k++ {
					arrival[i][k] = now
				}
				seen[i].Store(newest)
			}
		})
	}
	select {
	case err := <-dialErr:
		return res, fmt.Errorf("dial: %w", err)
	default:
	}
	// Warm-up: post until every socket holds a state, so the timed updates find them subscribed.
	all := func(rev int64) bool {
		for i := range seen {
			if seen[i].Load() < rev {
				return false
			}
		}
		return true
	}
	warm := 0
	for warm < maxWarm && !all(1) {
		warm++
		if _, err := e.post(ctx, postURL, line(warm)); err != nil {
			return res, err
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !all(1) {
		return res, errors.New("sockets still silent after the warm-up")
	}
	first := warm + 1
	// Let the warm-up's traffic drain before the clock matters.
	for end := time.Now().Add(5 * time.Second); !all(int64(warm)) && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	cpu0, err := s.cpu()
	if err != nil {
		return res, err
	}
	recv0 := received.Load()
	starts, ends := make([]time.Time, total), make([]time.Time, total)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	for k := first; k < first+updates; k++ {
		<-tick.C
		starts[k] = time.Now()
		if _, err := e.post(ctx, postURL, line(k)); err != nil {
			tick.Stop()
			return res, err
		}
		ends[k] = time.Now()
	}
	tick.Stop()
	last := int64(first + updates - 1)
	for end := time.Now().Add(20 * time.Second); !all(last) && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	cpu1, err := s.cpu()
	if err != nil {
		return res, err
	}
	res.perSocket = float64(received.Load()-recv0) / float64(sockets*updates)
	cancel()
	wg.Wait()
	res.cpuPerMsg = cpuPer(cpu0, cpu1, updates)
	res.reloads = int(other.Load())
	var posts, afters []time.Duration
	for k := first; k <= int(last); k++ {
		posts = append(posts, ends[k].Sub(starts[k]))
	}
	for i := range arrival {
		for k := first; k <= int(last); k++ {
			a := arrival[i][k]
			if a.IsZero() {
				res.missing++
				continue
			}
			res.lat = append(res.lat, a.Sub(starts[k]))
			afters = append(afters, a.Sub(ends[k]))
			if k < int(last) && a.Equal(arrival[i][k+1]) {
				res.coalesced++
			}
		}
	}
	res.post, res.after = quantile(posts, 0.5), quantile(afters, 0.5)
	return res, nil
}

// quantile is the q-quantile of ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*q)]
}

// quantileMS is the q-quantile of ds in milliseconds.
func quantileMS(ds []time.Duration, q float64) float64 {
	return ms(quantile(ds, q))
}
