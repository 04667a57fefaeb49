package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/plandash/plandash/internal/benchplan"
)

// benchTeam is issue 15's load test: N simulated agents and M browsers against two plandash
// instances sharing one PostgreSQL database, and against one instance on SQLite in the same
// run. It reports ingest throughput (two PostgreSQL instances against one SQLite), the fan-out
// latency a browser on instance B sees for a change posted to instance A minus what a browser on
// A itself sees, and decision → wake-up across instances (the waiter on A, the decision on B).
//
// The PostgreSQL cluster is the one $PLANDASH_TEST_PG names (scripts/pg-test.sh starts a
// throwaway one: `scripts/pg-test.sh go run ./bench team`); the run creates a schema of its own
// there and drops it at the end.
func benchTeam(ctx context.Context, e *env) (*teamReport, error) {
	base := os.Getenv("PLANDASH_TEST_PG")
	if base == "" {
		return nil, errors.New("team needs a PostgreSQL cluster: run it as `scripts/pg-test.sh go run ./bench team`, or set PLANDASH_TEST_PG to a postgres:// URL")
	}
	dbURL, drop, fsync, err := benchSchema(ctx, base)
	if err != nil {
		return nil, err
	}
	defer drop()
	a, err := e.startPlandash("--db", dbURL)
	if err != nil {
		return nil, err
	}
	defer a.stop()
	b, err := e.startPlandash("--db", dbURL)
	if err != nil {
		return nil, err
	}
	defer b.stop()
	lite, err := e.startPlandash()
	if err != nil {
		return nil, err
	}
	defer lite.stop()

	agents, browsers, perAgent := 40, 100, 100
	fanUpdates, decisions := 200, 100
	if e.quick {
		agents, browsers, perAgent, fanUpdates, decisions = 8, 10, 20, 30, 15
	}
	rep := &teamReport{agents: agents, browsers: browsers}
	if fsync != "on" {
		// A throwaway test cluster (scripts/pg-test.sh) runs without fsync; SQLite here syncs
		// every commit. Say so next to the figures rather than let them flatter PostgreSQL.
		rep.notes = append(rep.notes, "PostgreSQL runs with fsync="+fsync+" (a test cluster): its commits skip the disk flush SQLite's make")
	}
	rep.notes = append(rep.notes, "load average at the start: "+loadAvg())
	defer func() { rep.notes = append(rep.notes, "load average at the end: "+loadAvg()) }()
	for i := range e.runs {
		for _, batch := range []int{1, 10} {
			name := fmt.Sprintf("ingest, batch %d", batch)
			load := teamIngest{agents: agents, browsers: browsers, msgs: perAgent * batch, batch: batch, sid: fmt.Sprintf("r%d-b%d", i, batch)}
			side := func(label string, on ...*server) func() error {
				return func() error {
					r, err := e.teamIngestLoad(ctx, on, load)
					if err != nil {
						return fmt.Errorf("%s: %s: %w", name, label, err)
					}
					rep.add(name+": "+label, "msgs/s", r)
					return nil
				}
			}
			pg, sq := side("2 instances on PostgreSQL", a, b), side("1 instance on SQLite", lite)
			if err := pair(i, pg, sq); err != nil {
				return nil, err
			}
		}
		fmt.Fprintf(e.log, "team run %d: ingest done\n", i+1)

		ws := func(s *server) string { return s.wsURL("/ws?topic=all") }
		for k, c := range []struct {
			name     string
			post, at *server
		}{
			{"fan-out p99, post to A, browsers on A (PostgreSQL)", a, a},
			{"fan-out p99, post to A, browsers on B (PostgreSQL)", a, b},
			{"fan-out p99, one SQLite instance", lite, lite},
		} {
			res, err := e.fanLoad(ctx, c.at, c.post.URL+"/api/v1/ingest", ws(c.at), fmt.Sprintf("team-fan-%d-%d", i, k), browsers, fanUpdates, 100, false, 0)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.name, err)
			}
			if res.missing > 0 {
				rep.notes = append(rep.notes, fmt.Sprintf("%s, run %d: %d (socket, update) pairs never covered", c.name, i+1, res.missing))
			}
			rep.add(c.name, "ms", quantileMS(res.lat, 0.99))
			rep.add(strings.Replace(c.name, "p99", "p50", 1), "ms", quantileMS(res.lat, 0.5))
		}
		fmt.Fprintf(e.log, "team run %d: fan-out done\n", i+1)

		for k, c := range []struct {
			name              string
			submit, wait, dec *server
		}{
			{"wake-up p99, waiter on A, decision on A (PostgreSQL)", a, a, a},
			{"wake-up p99, waiter on A, decision on B (PostgreSQL)", a, a, b},
			{"wake-up p99, one SQLite instance", lite, lite, lite},
		} {
			api := gateAPI{
				create: func(string) string { return c.submit.URL + "/api/v1/approvals" },
				wait:   func(id string) string { return c.wait.URL + "/api/v1/approvals/" + id + "?wait=60s" },
				decide: func(id string) string { return c.dec.URL + "/api/v1/approvals/" + id + "/decision" },
			}
			lat, _, err := e.decisionLoad(ctx, c.dec, api, fmt.Sprintf("team-%d-%d", i, k), decisions)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.name, err)
			}
			rep.add(c.name, "ms", quantileMS(lat, 0.99))
			rep.add(strings.Replace(c.name, "p99", "p50", 1), "ms", quantileMS(lat, 0.5))
		}
		fmt.Fprintf(e.log, "team run %d: decisions done\n", i+1)
	}
	return rep, nil
}

// loadAvg is the machine's 1, 5 and 15-minute load averages: figures taken on a busy machine
// say so.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ") + fmt.Sprintf(" (%d CPUs)", runtime.NumCPU())
}

// benchSchema creates a fresh schema on the cluster at base and returns a URL whose tables land
// in it, a function dropping it, and the cluster's fsync setting.
func benchSchema(ctx context.Context, base string) (string, func(), string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, "", errors.New("PLANDASH_TEST_PG must be a postgres:// URL")
	}
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", nil, "", err
	}
	schema := "bench_team_" + hex.EncodeToString(b)
	var fsync string
	exec := func(ctx context.Context, sql string) error {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return fmt.Errorf("connect to PostgreSQL: %w", err)
		}
		defer conn.Close(ctx)
		if _, err = conn.Exec(ctx, sql); err != nil {
			return err
		}
		return conn.QueryRow(ctx, "SHOW fsync").Scan(&fsync)
	}
	if err := exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, "", err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
	}
	return u.String(), drop, fsync, nil
}

// teamIngest is one ingest load: agents posting their own session's plan, batch lines a post,
// msgs lines each, while browsers watch the overview.
type teamIngest struct {
	agents, browsers, msgs, batch int
	sid                           string
}

// teamIngestLoad spreads the browsers and the agents over the instances, round-robin, and
// returns messages per second from the first post to the last answer.
func (e *env) teamIngestLoad(ctx context.Context, servers []*server, l teamIngest) (float64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var readers sync.WaitGroup
	defer readers.Wait()
	defer cancel()
	for i := range l.browsers {
		s := servers[i%len(servers)]
		c, err := dialSocket(ctx, s.wsURL("/ws?topic=all"))
		if err != nil {
			return 0, fmt.Errorf("browser %d: %w", i, err)
		}
		readers.Go(func() {
			defer c.CloseNow()
			for {
				if _, _, err := c.Read(ctx); err != nil {
					return
				}
			}
		})
	}
	errs := make(chan error, l.agents)
	var agents sync.WaitGroup
	start := time.Now()
	for i := range l.agents {
		s := servers[i%len(servers)]
		sid := fmt.Sprintf("%s-agent%d", l.sid, i)
		agents.Go(func() {
			for sent := 0; sent < l.msgs; sent += l.batch {
				var body strings.Builder
				for k := range l.batch {
					body.WriteString(benchplan.Line(sid, sent+k))
					body.WriteByte('\n')
				}
				if _, err := e.post(ctx, s.URL+"/api/v1/ingest", body.String()); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	agents.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return float64(l.agents*l.msgs) / elapsed.Seconds(), nil
}

// teamReport is the team load test's figures, one per run for each line.
type teamReport struct {
	agents, browsers int
	names            []string
	units            map[string]string
	figures          map[string][]float64
	notes            []string
}

func (r *teamReport) add(name, unit string, v float64) {
	if r.figures == nil {
		r.figures, r.units = map[string][]float64{}, map[string]string{}
	}
	if _, ok := r.figures[name]; !ok {
		r.names = append(r.names, name)
		r.units[name] = unit
	}
	r.figures[name] = append(r.figures[name], v)
}

// get is the median of a line's runs.
func (r *teamReport) get(name string) float64 { return median(r.figures[name]) }

// print writes every line (median and range over the runs), then the three figures issue 15
// sets goals for, each against its goal.
func (r *teamReport) print(w io.Writer) {
	fmt.Fprintf(w, "\n## team: %d agents × %d browsers; two plandash instances on one PostgreSQL, and one on SQLite\n\n", r.agents, r.browsers)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tunit\tmedian\trange over runs\t")
	for _, n := range r.names {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", n, r.units[n], num(r.get(n)), spread(r.figures[n]))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, batch := range []string{"1", "10"} {
		pg, sq := r.get("ingest, batch "+batch+": 2 instances on PostgreSQL"), r.get("ingest, batch "+batch+": 1 instance on SQLite")
		if sq > 0 {
			fmt.Fprintf(w, "- ingest, batch %s: two PostgreSQL instances take %s× one SQLite instance's rate (goal ≥ 1×): %s\n", batch, num(pg/sq), verdict(pg >= sq))
		}
	}
	same, cross := r.get("fan-out p99, post to A, browsers on A (PostgreSQL)"), r.get("fan-out p99, post to A, browsers on B (PostgreSQL)")
	fmt.Fprintf(w, "- cross-instance fan-out adds %s ms at p99 (%s − %s; goal ≤ 50 ms): %s\n", num(cross-same), num(cross), num(same), verdict(cross-same <= 50))
	wake := r.get("wake-up p99, waiter on A, decision on B (PostgreSQL)")
	fmt.Fprintf(w, "- decision → wake-up across instances p99: %s ms (goal ≤ 50 ms): %s\n", num(wake), verdict(wake <= 50))
	fmt.Fprintln(w, "- fan-out: from the start of the POST to A until each browser holds a state at least that new (the commit is inside); wake-up: from the start of the decision POST until the long poll answers")
	for _, n := range r.notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
}
