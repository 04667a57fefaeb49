package app

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/plandash/plandash/internal/metrics/metricstest"
	"github.com/plandash/plandash/internal/store/postgres"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
	"github.com/plandash/plandash/internal/web"
)

// startSQLite serves an instance on its own SQLite file until the test ends.
func startSQLite(t *testing.T) *instance {
	t.Helper()
	data := t.TempDir()
	a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)},
		DataDir: data, Token: "tok", PlansDir: data + "/plans", Version: "v9.9.9"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections()
		cancel()
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return &instance{App: a, URL: "http://" + ln.Addr().String()}
}

// scrapeMetrics reads GET /metrics with the token and parses it strictly.
func scrapeMetrics(t *testing.T, in *instance) metricstest.Scrape {
	t.Helper()
	code, body := in.call(t, "GET", "/metrics", "")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	s, err := metricstest.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics is not valid exposition text: %v\n%s", err, body)
	}
	return s
}

// waitMetric scrapes until check passes (the socket's frame is counted just after it is sent).
func waitMetric(t *testing.T, in *instance, what string, check func(metricstest.Scrape) bool) metricstest.Scrape {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := scrapeMetrics(t, in)
		if check(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never moved; last scrape %+v", what, s.Samples)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMetricsAfterTraffic: after real traffic (ingest, a live page, an approval request) the
// counters of one SQLite instance moved, and /metrics needs the token.
func TestMetricsAfterTraffic(t *testing.T) {
	in := startSQLite(t)
	resp, err := http.Get(in.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: %d, want 401", resp.StatusCode)
	}
	before := scrapeMetrics(t, in)
	if v, ok := before.Value("plandash_build_info", "version", "v9.9.9", "goversion", goVersion(before), "store", "sqlite"); !ok || v != 1 {
		t.Errorf("build info missing: %+v", before.Samples)
	}

	page := in.socket(t, "session:m1")
	body := planLine("m1", "Count me") + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","method":"_x/custom","params":{}}`
	if code, b := in.call(t, "POST", "/api/v1/ingest", body); code/100 != 2 {
		t.Fatalf("ingest: %d %s", code, b)
	}
	frameWith(t, page, "Count me")
	if code, b := in.call(t, "POST", "/api/v1/approvals", submission); code != http.StatusCreated {
		t.Fatalf("submit: %d %s", code, b)
	}
	if code, _ := in.call(t, "POST", "/api/v1/hooks/claude", "{not json"); code != http.StatusBadRequest {
		t.Fatalf("hook: %d", code)
	}

	s := waitMetric(t, in, "fan-out lag", func(s metricstest.Scrape) bool {
		v, _ := s.Value("plandash_fanout_lag_seconds_count")
		return v >= 1
	})
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64 // at least
	}{
		{"plandash_ingest_posts_total", []string{"source", "ingest"}, 1},
		{"plandash_ingest_posts_total", []string{"source", "hook:claude"}, 1},
		{"plandash_ingest_messages_total", []string{"kind", "session/update"}, 1},
		{"plandash_ingest_messages_total", []string{"kind", "response"}, 1},
		{"plandash_ingest_messages_total", []string{"kind", "other"}, 1},
		{"plandash_sockets_open", nil, 1},
		{"plandash_socket_frames_total", []string{"path", "live"}, 1},
		{"plandash_approvals_pending", nil, 1},
		{"plandash_store_seconds_count", []string{"store", "plans", "call", "commit"}, 1},
		{"plandash_store_seconds_count", []string{"store", "approvals", "call", "create"}, 1},
	} {
		got, ok := s.Value(tc.name, tc.labels...)
		if !ok || got < tc.want {
			t.Errorf("%s%v = %v (present %v), want at least %v", tc.name, tc.labels, got, ok, tc.want)
		}
	}
	if v, _ := before.Value("plandash_approvals_pending"); v != 0 {
		t.Errorf("pending before any request: %v", v)
	}
	page.CloseNow()
	waitMetric(t, in, "sockets closing", func(s metricstest.Scrape) bool {
		v, ok := s.Value("plandash_sockets_open")
		return ok && v == 0
	})
}

// TestMetricsAcrossInstances: on PostgreSQL, a change ingested on A reaches B's page through
// LISTEN/NOTIFY; B counts the note heard and the frame's lag, A the ingest and the commit.
func TestMetricsAcrossInstances(t *testing.T) {
	db := pgtest.URL(t)
	a, b := startInstance(t, db), startInstance(t, db)
	page := b.liveSocket(t, "session:x1")
	if code, body := a.call(t, "POST", "/api/v1/ingest", planLine("x1", "Across")); code/100 != 2 {
		t.Fatalf("ingest on A: %d %s", code, body)
	}
	frameWith(t, page, "Across")
	sb := waitMetric(t, b, "B's fan-out lag", func(s metricstest.Scrape) bool {
		v, _ := s.Value("plandash_fanout_lag_seconds_count")
		return v >= 1
	})
	if v := sb.Sum("plandash_listen_notes_total", "kind", "session", "via", "notify"); v < 1 {
		t.Errorf("B heard no session note: %+v", sb.Samples)
	}
	if v := sb.Sum("plandash_ingest_posts_total"); v != 0 {
		t.Errorf("B counted %v ingest posts; they all went to A", v)
	}
	sa := scrapeMetrics(t, a)
	if v, _ := sa.Value("plandash_ingest_messages_total", "kind", "session/update"); v < 1 {
		t.Errorf("A counted no session/update: %+v", sa.Samples)
	}
	if v, _ := sa.Value("plandash_store_seconds_count", "store", "plans", "call", "commit"); v < 1 {
		t.Errorf("A timed no commit")
	}
	if _, ok := sa.Value("plandash_build_info", "version", "dev", "goversion", goVersion(sa), "store", "postgres"); !ok {
		t.Errorf("A's build info does not say postgres: %+v", sa.Samples)
	}

	// B's listening connection dies; it reconnects, catches up, and counts the reconnect.
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`,
		b.DB.(*postgres.DB).ApplicationName()); err != nil {
		t.Fatal(err)
	}
	if code, body := a.call(t, "POST", "/api/v1/ingest", planLine("x1", "After the cut")); code/100 != 2 {
		t.Fatalf("ingest on A: %d %s", code, body)
	}
	frameWith(t, page, "After the cut")
	waitMetric(t, b, "B's listener reconnects", func(s metricstest.Scrape) bool {
		v, _ := s.Value("plandash_listen_reconnects_total")
		return v >= 1
	})
}

// goVersion is the goversion label a scrape's build info carries.
func goVersion(s metricstest.Scrape) string {
	for _, x := range s.Samples {
		if x.Name == "plandash_build_info" {
			return x.Labels["goversion"]
		}
	}
	return ""
}
