package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/plandash/plandash/web/templates"
)

// planUpdateLine is one ACP plan_update: plan planID of session sid, with five entries.
func planUpdateLine(sid string, planID int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"plan-%02d","entries":[`+
		`{"content":"Read the handler and its tests","priority":"high","status":"completed"},`+
		`{"content":"Add the rate limiter to plan %d","priority":"medium","status":"in_progress"},{"content":"Write table-driven tests","priority":"medium","status":"pending"},`+
		`{"content":"Update the docs","priority":"low","status":"pending"},{"content":"Ship it","priority":"low","status":"pending"}]}}}}`, sid, planID, planID)
}

// benchOverview measures the overview the way a browser loads it: GET / of plandash holding 50
// active sessions of 20 plans each (1,000 plans; the first page shows every session, with six
// plans each and a link to the rest), against a bare server that reads the same updates from
// SQLite and answers what the page shows as JSON.
func benchOverview(ctx context.Context, e *env) (*table, error) {
	const sessions, perSession, shown = 50, 20, templates.MaxGroupPlans
	gets := 40
	if e.quick {
		gets = 5
	}
	pd, err := e.startPlandash()
	if err != nil {
		return nil, err
	}
	defer pd.stop()
	yard, err := e.startYard("yard-overview")
	if err != nil {
		return nil, err
	}
	defer yard.stop()
	var body strings.Builder
	for s := range sessions {
		for p := range perSession {
			body.WriteString(planUpdateLine(fmt.Sprintf("sess-%02d", s), p))
			body.WriteByte('\n')
		}
	}
	for _, s := range []struct {
		srv  *server
		path string
	}{{pd, "/api/v1/ingest"}, {yard, "/ingest"}} {
		if _, err := e.post(ctx, s.srv.URL+s.path, body.String()); err != nil {
			return nil, fmt.Errorf("%s: storing the plans: %w", s.srv.name, err)
		}
	}
	t := &table{title: fmt.Sprintf("overview: GET / with %d active sessions of %d plans (%d plans stored, %d on the page)", sessions, perSession, sessions*perSession, sessions*shown),
		yard: "bare net/http + modernc SQLite + encoding/json: the plans the page shows, read from SQLite and answered as JSON"}
	r := &row{name: fmt.Sprintf("%d plans stored", sessions*perSession), unit: "ms per GET"}
	var sizes [2]int
	for i := range e.runs {
		side := func(s *server, path string, ours bool) func() error {
			return func() error {
				ms, cpu, answer, err := e.getLoad(ctx, s, path, gets)
				if err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
				if ours {
					if n := strings.Count(answer, `data-testid="plan-card"`); n != sessions*shown {
						return fmt.Errorf("the overview shows %d plans, want %d", n, sessions*shown)
					}
					r.ours, r.cpuOurs, sizes[0] = append(r.ours, ms), append(r.cpuOurs, cpu), len(answer)
				} else {
					r.yard, r.cpuYard, sizes[1] = append(r.yard, ms), append(r.cpuYard, cpu), len(answer)
				}
				return nil
			}
		}
		if err := pair(i, side(pd, "/", true), side(yard, "/overview", false)); err != nil {
			return nil, err
		}
	}
	t.rows = append(t.rows, r)
	t.notes = append(t.notes, fmt.Sprintf("answers: plandash %d KB of HTML, the yardstick %d KB of JSON, both uncompressed (Accept-Encoding: identity)", sizes[0]>>10, sizes[1]>>10),
		"time: median of sequential GETs, request start → last byte read; CPU column: server µs per GET")
	return t, nil
}

// getLoad GETs path n times in a row and returns the median wall time in ms, the server's CPU µs
// per GET and the last answer.
func (e *env) getLoad(ctx context.Context, s *server, path string, n int) (ms, cpuPerGet float64, last string, err error) {
	cpu0, err := s.cpu()
	if err != nil {
		return 0, 0, last, err
	}
	times := make([]float64, 0, n)
	for range n {
		req, err := http.NewRequestWithContext(ctx, "GET", s.URL+path, nil)
		if err != nil {
			return 0, 0, last, err
		}
		req.Header.Set("Accept-Encoding", "identity")
		start := time.Now()
		b, err := e.do(req)
		if err != nil {
			return 0, 0, last, err
		}
		times = append(times, float64(time.Since(start).Microseconds())/1e3)
		last = string(b)
	}
	cpu1, err := s.cpu()
	if err != nil {
		return 0, 0, last, err
	}
	return median(times), cpuPer(cpu0, cpu1, n), last, nil
}

// overviewHandler answers GET /overview: the newest update of the first MaxGroupPlans plans of
// every session stored by POST /ingest (what plandash's overview shows), decoded and grouped by
// session, as JSON.
func overviewHandler(db *sql.DB) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /ingest", ingestHandler(db))
	mux.HandleFunc("GET /overview", func(w http.ResponseWriter, r *http.Request) {
		rows, err := db.QueryContext(r.Context(), `SELECT session, body FROM updates WHERE id IN (
			SELECT MAX(id) FROM updates GROUP BY session, json_extract(body, '$.params.update.plan.planId')) ORDER BY session, id`)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer rows.Close()
		type plan struct {
			ID      string `json:"planId"`
			Entries []struct {
				Content  string `json:"content"`
				Priority string `json:"priority"`
				Status   string `json:"status"`
			} `json:"entries"`
		}
		type group struct {
			Session string `json:"session"`
			Plans   []plan `json:"plans"`
		}
		var out []*group
		for rows.Next() {
			var sid, body string
			if err := rows.Scan(&sid, &body); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			if len(out) > 0 && out[len(out)-1].Session == sid && len(out[len(out)-1].Plans) == templates.MaxGroupPlans {
				continue
			}
			var m struct {
				Params struct {
					Update struct {
						Plan plan `json:"plan"`
					} `json:"update"`
				} `json:"params"`
			}
			if err := json.Unmarshal([]byte(body), &m); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			if len(out) == 0 || out[len(out)-1].Session != sid {
				out = append(out, &group{Session: sid})
			}
			g := out[len(out)-1]
			g.Plans = append(g.Plans, m.Params.Update.Plan)
		}
		if err := rows.Err(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
	return mux
}
