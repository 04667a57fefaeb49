package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// gateAPI names a server's three calls: submit a request, long-poll it, decide it.
type gateAPI struct {
	create, wait, decide func(id string) string
}

// benchDecision measures decision → waiter: from the start of the POST deciding a request to
// the waiter's long poll answering with the decision, against a bare long-poll server that
// stores the decision with the same durability.
func benchDecision(ctx context.Context, e *env) (*table, error) {
	pd, err := e.startPlandash()
	if err != nil {
		return nil, err
	}
	defer pd.stop()
	yard, err := e.startYard("yard-poll")
	if err != nil {
		return nil, err
	}
	defer yard.stop()
	// 500 requests: the p99 is then the fifth-slowest, not (with 200) the second, which one
	// stray scheduling delay on either side decides.
	n := 500
	if e.quick {
		n = 20
	}
	ours := gateAPI{
		create: func(string) string { return pd.URL + "/api/v1/approvals" },
		wait:   func(id string) string { return pd.URL + "/api/v1/approvals/" + id + "?wait=60s" },
		decide: func(id string) string { return pd.URL + "/api/v1/approvals/" + id + "/decision" },
	}
	bare := gateAPI{
		create: func(string) string { return yard.URL + "/req" },
		wait:   func(id string) string { return yard.URL + "/req/" + id },
		decide: func(id string) string { return yard.URL + "/req/" + id + "/decision" },
	}
	t := &table{title: fmt.Sprintf("decision → waiter: %d requests one after another, decision POST start → long poll answered", n),
		yard: "bare net/http long-poll: request and decision rows in SQLite (WAL, FULL), a channel closed per decision"}
	p50 := &row{name: "p50", unit: "ms"}
	p99 := &row{name: "p99", unit: "ms"}
	for i := range e.runs {
		side := func(s *server, api gateAPI, ours bool) func() error {
			return func() error {
				lat, cpu, err := e.decisionLoad(ctx, s, api, fmt.Sprintf("bench-%d", i), n)
				if err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
				if ours {
					p50.ours, p99.ours, p99.cpuOurs = append(p50.ours, quantileMS(lat, 0.5)), append(p99.ours, quantileMS(lat, 0.99)), append(p99.cpuOurs, cpu)
				} else {
					p50.yard, p99.yard, p99.cpuYard = append(p50.yard, quantileMS(lat, 0.5)), append(p99.yard, quantileMS(lat, 0.99)), append(p99.cpuYard, cpu)
				}
				return nil
			}
		}
		if err := pair(i, side(pd, ours, true), side(yard, bare, false)); err != nil {
			return nil, err
		}
	}
	t.rows = append(t.rows, p50, p99)
	// The goal: p99 within 1.5× the bare long-poll's, in every run.
	met := len(p99.ratios()) == e.runs
	for _, r := range p99.ratios() {
		met = met && r <= 1.5
	}
	t.notes = append(t.notes, fmt.Sprintf("p99: goal ≤ 1.5× the bare long-poll in every run (%s by run): %s", spread(p99.ratios()), verdict(met)),
		"CPU column: server µs per request, submission, wait and decision together")
	return t, nil
}

func (e *env) decisionLoad(ctx context.Context, s *server, api gateAPI, prefix string, n int) ([]time.Duration, float64, error) {
	cpu0, err := s.cpu()
	if err != nil {
		return nil, 0, err
	}
	var lat []time.Duration
	for k := range n {
		id := fmt.Sprintf("%s-%d", prefix, k)
		body := fmt.Sprintf(`{"id":%q,"title":"Bench request %d","agent":"bench","sessionId":"bench",`+
			`"plan":{"type":"items","entries":[{"content":"Run the migration","priority":"high","status":"pending"},{"content":"Deploy","priority":"medium","status":"pending"}]},`+
			`"timeout":"15m","default":"reject"}`, id, k)
		if _, err := e.post(ctx, api.create(id), body); err != nil {
			return nil, 0, err
		}
		type answer struct {
			at     time.Time
			status string
			err    error
		}
		got := make(chan answer, 1)
		go func() {
			req, err := http.NewRequestWithContext(ctx, "GET", api.wait(id), nil)
			if err != nil {
				got <- answer{err: err}
				return
			}
			b, err := e.do(req)
			a := answer{at: time.Now(), err: err}
			var st struct {
				Status string `json:"status"`
			}
			if err == nil {
				a.err = json.Unmarshal(b, &st)
			}
			a.status = st.Status
			got <- a
		}()
		// The waiter must be parked before the decision, or we would time a plain GET. Nothing
		// outside the server can see it park; this pause is outside the timed region.
		time.Sleep(30 * time.Millisecond)
		start := time.Now()
		if _, err := e.post(ctx, api.decide(id), `{"action":"approve","comment":"bench"}`); err != nil {
			return nil, 0, err
		}
		a := <-got
		if a.err != nil {
			return nil, 0, fmt.Errorf("waiter: %w", a.err)
		}
		if a.status == "pending" || a.status == "" {
			return nil, 0, fmt.Errorf("waiter got %q, not the decision", a.status)
		}
		lat = append(lat, a.at.Sub(start))
	}
	cpu1, err := s.cpu()
	if err != nil {
		return nil, 0, err
	}
	return lat, cpuPer(cpu0, cpu1, n), nil
}
