package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/store/fault"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
)

// pgGate stands between plandash and the test cluster on a port of its own: down() drops
// every connection through it and refuses new ones, as a PostgreSQL that stopped or
// restarts does to its clients; up() takes them again on the same port.
type pgGate struct {
	t      *testing.T
	addr   string // where plandash connects
	target string // the cluster

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

func newPGGate(t *testing.T, target string) *pgGate {
	g := &pgGate{t: t, target: target, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.addr = ln.Addr().String()
	g.serve(ln)
	t.Cleanup(g.down)
	return g
}

func (g *pgGate) serve(ln net.Listener) {
	g.mu.Lock()
	g.ln = ln
	g.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go g.pipe(c)
		}
	}()
}

func (g *pgGate) pipe(c net.Conn) {
	up, err := net.Dial("tcp", g.target)
	if err != nil {
		c.Close()
		return
	}
	g.mu.Lock()
	if g.ln == nil { // went down meanwhile
		g.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	g.conns[c], g.conns[up] = true, true
	g.mu.Unlock()
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}

func (g *pgGate) down() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ln != nil {
		g.ln.Close()
		g.ln = nil
	}
	for c := range g.conns {
		c.Close()
		delete(g.conns, c)
	}
}

func (g *pgGate) up() {
	ln, err := net.Listen("tcp", g.addr)
	if err != nil {
		g.t.Fatalf("listen again on %s: %v", g.addr, err)
	}
	g.serve(ln)
}

// TestDatabaseUnavailablePostgres: PostgreSQL goes away under load (its backends terminated,
// as a restart does, then every connection refused). Ingests, approval requests and decisions
// get 503 with Retry-After saying "database unavailable", /readyz is 503 and /metrics counts
// the failures; a client posting meanwhile gets through once the database is back, and /readyz
// is 200 again by itself.
func TestDatabaseUnavailablePostgres(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	app := "plandash-fault-" + hex.EncodeToString(b)
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	direct := u.String()
	gate := newPGGate(t, u.Host)
	u.Host = gate.addr
	in := serveApp(t, Config{DataDir: t.TempDir(), DB: u.String(), PlansDir: filepath.Join(t.TempDir(), "plans")})

	if code, body := in.call(t, "POST", "/api/v1/approvals", submission); code != http.StatusCreated {
		t.Fatalf("submit: %d %s", code, body)
	}
	if code := in.readyz(t); code != http.StatusOK {
		t.Fatalf("readyz with the database up: %d", code)
	}

	// A restart: the server ends every backend (57P01 admin_shutdown), then refuses.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, app); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	gate.down()

	// Under load: every write of every kind, at once.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			unavailable(t, in, "ingest while the database is away", "POST", "/api/v1/ingest", planLine("s"+strconv.Itoa(i), "x"), "database unavailable")
		})
		wg.Go(func() {
			sub := strings.Replace(submission, `"deploy"`, `"away-`+strconv.Itoa(i)+`"`, 1)
			unavailable(t, in, "an approval request while the database is away", "POST", "/api/v1/approvals", sub, "database unavailable")
		})
		wg.Go(func() {
			unavailable(t, in, "a decision while the database is away", "POST", "/api/v1/approvals/deploy/decision", `{"action":"approve"}`, "database unavailable")
		})
	}
	wg.Wait()
	if code := in.readyz(t); code != http.StatusServiceUnavailable {
		t.Fatalf("readyz while the database is away: %d, want 503", code)
	}
	// Each request and decision failed on its own store call; concurrent ingests may share one
	// commit.
	if n := scrapeMetrics(t, in).Sum("plandash_store_unavailable_total", "cause", "database_unavailable"); n < 17 {
		t.Fatalf("plandash_store_unavailable_total{cause=database_unavailable} = %v, want at least 17", n)
	}

	posted := make(chan error, 1)
	c := client.New(in.URL, "tok")
	health := in.DB.(faulting).Health()
	refused := health.Count(fault.DatabaseUnavailable)
	go func() {
		_, err := c.Ingest(context.Background(), strings.NewReader(planLine("retried", "Through once it is back")), client.IngestOptions{})
		posted <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); health.Count(fault.DatabaseUnavailable) == refused; {
		if time.Now().After(deadline) {
			t.Fatal("the client's post was never refused")
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not an assertion
	}
	gate.up()
	select {
	case err := <-posted:
		if err != nil {
			t.Fatalf("the client's post once the database is back: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the client's post never got through")
	}
	if code, body := in.call(t, "GET", "/api/v1/sessions/retried", ""); code != http.StatusOK || !strings.Contains(string(body), "Through once it is back") {
		t.Fatalf("the retried post is not stored: %d %s", code, body)
	}
	if code, body := in.call(t, "POST", "/api/v1/approvals/deploy/decision", `{"action":"approve"}`); code != http.StatusOK {
		t.Fatalf("a decision once the database is back: %d %s", code, body)
	}
	if code := in.readyz(t); code != http.StatusOK {
		t.Fatalf("readyz once the database is back: %d, want 200", code)
	}
}
