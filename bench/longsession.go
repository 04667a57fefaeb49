package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// callLine is one ACP session/update about tool call id of session sid: a new call, or an update
// to it whose title carries mark, so a page's socket shows when the change reached it.
func callLine(sid string, id int, update bool, mark string) string {
	kind, status := "tool_call", "pending"
	if update {
		kind, status = "tool_call_update", []string{"in_progress", "completed"}[id%2]
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":%q,"toolCallId":"call-%06d",`+
		`"title":"Read internal/server/handler_%d.go %s","kind":"read","status":%q,"rawInput":{"path":"internal/server/handler_%d.go"}}}}`,
		sid, kind, id, id, mark, status, id)
}

// benchLongSession measures what issue 11 says a working day does to the live path, from
// outside: the server CPU one change costs in a session with 20,000 tool calls against the same
// change in a fresh session, both pages open; and the overview's live updates of another
// session, at 100 sockets, while an agent posts to the long session every 200 ms, against the
// same load with the long session quiet.
func benchLongSession(ctx context.Context, e *env) (*table, error) {
	calls, changes, updates, sockets := 20000, 500, 1000, 100
	if e.quick {
		calls, changes, updates = 2000, 40, 40
	}
	pd, err := e.startPlandash()
	if err != nil {
		return nil, err
	}
	defer pd.stop()
	ingest := pd.URL + "/api/v1/ingest"
	for start := 0; start < calls; start += 1000 {
		var b strings.Builder
		for id := start; id < min(start+1000, calls); id++ {
			b.WriteString(callLine("long", id, false, ""))
			b.WriteByte('\n')
		}
		if _, err := e.post(ctx, ingest, b.String()); err != nil {
			return nil, fmt.Errorf("filling the long session: %w", err)
		}
	}
	if _, err := e.post(ctx, ingest, callLine("fresh", 0, false, "")); err != nil {
		return nil, err
	}
	fmt.Fprintf(e.log, "longsession: %d tool calls stored\n", calls)

	// Both sessions' pages stay open, so every change is rendered and sent as it would be.
	pages := map[string]*markWatch{}
	for _, sid := range []string{"long", "fresh"} {
		w, err := watchMarks(ctx, pd, "session:"+sid)
		if err != nil {
			return nil, err
		}
		defer w.close()
		pages[sid] = w
	}

	t := &table{title: fmt.Sprintf("a long session: one change to a session with %d tool calls; another session's live updates while it is busy", calls),
		yard: "plandash itself: the same change to a fresh session; the same fan-out with the long session quiet"}
	newCall := &row{name: "new tool call", unit: "server µs CPU/change"}
	callUpdate := &row{name: "tool call update", unit: "server µs CPU/change"}
	for i := range e.runs {
		for _, c := range []struct {
			r      *row
			update bool
		}{{newCall, false}, {callUpdate, true}} {
			side := func(sid string, n int, ours bool) func() error {
				return func() error {
					cpu, err := changeCost(ctx, e, pd, pages[sid], sid, n, c.update, changes, fmt.Sprintf("r%d", i))
					if err != nil {
						return fmt.Errorf("%s session: %w", sid, err)
					}
					if ours {
						c.r.ours = append(c.r.ours, cpu)
					} else {
						c.r.yard = append(c.r.yard, cpu)
					}
					return nil
				}
			}
			// A new call gets the next free id; an update goes to a call the session has.
			longID, freshID := calls+i*changes, 1+i*changes
			if c.update {
				longID, freshID = calls/2, 0
			}
			if err := pair(i, side("long", longID, true), side("fresh", freshID, false)); err != nil {
				return nil, err
			}
		}
	}
	t.rows = append(t.rows, newCall, callUpdate)
	fmt.Fprintln(e.log, "longsession: change costs done")

	p99 := &row{name: fmt.Sprintf("other session, %d overview sockets, p99", sockets), unit: "ms"}
	delivered := &row{name: "other session, updates delivered", unit: "%", higherBetter: true}
	wsAll := pd.wsURL("/ws?topic=all")
	for i := range e.runs {
		side := func(busy bool) func() error {
			return func() error {
				stop := make(chan struct{})
				var posted atomic.Int64
				var wg sync.WaitGroup
				errc := make(chan error, 1)
				if busy {
					wg.Go(func() { errc <- busyAgent(ctx, e, ingest, calls+100000*(i+1), stop, &posted) })
				}
				res, err := e.fanLoad(ctx, pd, ingest, wsAll, fmt.Sprintf("other-%d-%v", i, busy), sockets, updates, 100, false, 0)
				close(stop)
				wg.Wait()
				if busy {
					if berr := <-errc; berr != nil {
						return fmt.Errorf("the busy agent: %w", berr)
					}
				}
				if err != nil {
					return err
				}
				q := quantileMS(res.lat, 0.99)
				pct := 100 * float64(len(res.lat)) / float64(len(res.lat)+res.missing)
				if busy {
					p99.ours, delivered.ours = append(p99.ours, q), append(delivered.ours, pct)
					t.notes = append(t.notes, fmt.Sprintf("run %d: the long session took %d changes while the other session's %d updates went out", i+1, posted.Load(), updates))
				} else {
					p99.yard, delivered.yard = append(p99.yard, q), append(delivered.yard, pct)
				}
				return nil
			}
		}
		if err := pair(i, side(true), side(false)); err != nil {
			return nil, err
		}
	}
	t.rows = append(t.rows, p99, delivered)
	t.notes = append(t.notes,
		"change cost: server utime+stime over all changes, each posted alone and counted only once the session's open page shows it",
		"busy: an agent posts to the long session every 200 ms, a new tool call and an update to it in turn, as in issue 11")
	return t, nil
}

// changeCost posts n changes to session sid one at a time, each waited for on the session's
// page, and returns the server's CPU µs per change. A change is a new tool call (ids from id
// on) or an update to call id.
func changeCost(ctx context.Context, e *env, pd *server, page *markWatch, sid string, id int, update bool, n int, run string) (float64, error) {
	cpu0, err := pd.cpu()
	if err != nil {
		return 0, err
	}
	for k := range n {
		mark := fmt.Sprintf("mark-%s-%v-%06d", run, update, k)
		callID := id
		if !update {
			callID = id + k
		}
		if _, err := e.post(ctx, pd.URL+"/api/v1/ingest", callLine(sid, callID, update, mark)); err != nil {
			return 0, err
		}
		if err := page.wait(ctx, mark, 10*time.Second); err != nil {
			return 0, err
		}
	}
	cpu1, err := pd.cpu()
	if err != nil {
		return 0, err
	}
	return cpuPer(cpu0, cpu1, n), nil
}

// busyAgent posts to the long session every 200 ms until stop: a new tool call, then an update
// to it.
func busyAgent(ctx context.Context, e *env, ingest string, firstID int, stop <-chan struct{}, posted *atomic.Int64) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for k := 0; ; k++ {
		select {
		case <-stop:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if _, err := e.post(ctx, ingest, callLine("long", firstID+k/2, k%2 == 1, fmt.Sprintf("busy-%d", k))); err != nil {
			return err
		}
		posted.Add(1)
	}
}

// markRE finds the marks changeCost writes into tool calls' titles.
var markRE = regexp.MustCompile(`mark-r\d+-(?:true|false)-\d{6}`)

// markWatch reads one socket and remembers every mark its frames held, so a caller can wait for
// one.
type markWatch struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	cond   *sync.Cond
	marks  map[string]bool
	err    error
}

// watchMarks opens a socket on topic of pd.
func watchMarks(ctx context.Context, pd *server, topic string) (*markWatch, error) {
	ctx, cancel := context.WithCancel(ctx)
	c, err := dialSocket(ctx, pd.wsURL("/ws?topic="+topic))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("socket on %s: %w", topic, err)
	}
	w := &markWatch{cancel: cancel, done: make(chan struct{}), marks: map[string]bool{}}
	w.cond = sync.NewCond(&w.mu)
	go func() {
		defer close(w.done)
		defer c.CloseNow()
		for {
			_, msg, err := c.Read(ctx)
			w.mu.Lock()
			if err != nil {
				w.err = err
			} else {
				for _, m := range markRE.FindAll(msg, -1) {
					w.marks[string(m)] = true
				}
			}
			w.cond.Broadcast()
			w.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return w, nil
}

// wait returns once a frame holding mark has arrived, or fails after limit.
func (w *markWatch) wait(ctx context.Context, mark string, limit time.Duration) error {
	timer := time.AfterFunc(limit, func() {
		w.mu.Lock()
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer timer.Stop()
	end := time.Now().Add(limit)
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.marks[mark] {
		if w.err != nil {
			return fmt.Errorf("socket closed before %s arrived: %w", mark, w.err)
		}
		if time.Now().After(end) || ctx.Err() != nil {
			return fmt.Errorf("%s did not reach the page within %v", mark, limit)
		}
		w.cond.Wait()
	}
	return nil
}

func (w *markWatch) close() {
	w.cancel()
	<-w.done
}
