package plans_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/sqlite"
)

// The ingest benchmarks hold the goal "ingest ≥ 0.9× the bare yardstick at batch 1,000 and
// ≥ 0.8× with 50 concurrent posters". The yardstick is the least an ingest can do: HTTP, JSON
// decoding of every line, and SQLite (WAL, synchronous=FULL, one writer) with one transaction
// per post. plandash runs the same HTTP and NDJSON framing in front of the real Service on the
// real store. Both run in the same benchmark, alternating rounds, so machine noise hits both.

func BenchmarkIngestBatch1000(b *testing.B) { benchIngest(b, 1, 1000) }

func BenchmarkIngest50Posters(b *testing.B) { benchIngest(b, 50, 1) }

func benchLine(sid string, rev int) string {
	return upd(sid, fmt.Sprintf(`{"sessionUpdate":"plan","entries":[{"content":"Read the code","priority":"high","status":"completed"},`+
		`{"content":"Change it (%d)","priority":"medium","status":"in_progress"},{"content":"Test it","priority":"medium","status":"pending"},`+
		`{"content":"Review","priority":"low","status":"pending"},{"content":"Ship","priority":"low","status":"pending"}]}`, rev))
}

func benchIngest(b *testing.B, posters, batch int) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "plandash.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	svc := plans.NewService(db.Plans(), plans.Config{})
	ours := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var its []plans.Item
		for i, line := range bytes.Split(readAll(r), []byte("\n")) {
			msgs, err := acp.DecodeLine(line)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			for _, m := range msgs {
				its = append(its, plans.Item{Line: i + 1, Msg: m})
			}
		}
		res, err := svc.Apply(r.Context(), plans.NewStream(), its)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		json.NewEncoder(w).Encode(res)
	}))
	defer ours.Close()
	bare := yardstick(b)
	defer bare.Close()

	// Each poster posts its own sessions' updates, every post a new revision.
	rev := 0
	payloads := func() []string {
		out := make([]string, posters)
		for p := range out {
			var body strings.Builder
			for i := range batch {
				rev++
				body.WriteString(benchLine(fmt.Sprintf("sess-%d", (p*batch+i)%50), rev))
				body.WriteByte('\n')
			}
			out[p] = body.String()
		}
		return out
	}
	var oursT, bareT time.Duration
	msgs := 0
	for b.Loop() {
		bodies := payloads()
		oursT += round(b, ours.URL, bodies)
		bareT += round(b, bare.URL, bodies)
		msgs += posters * batch
	}
	b.ReportMetric(float64(msgs)/oursT.Seconds(), "msgs/s")
	b.ReportMetric(float64(msgs)/bareT.Seconds(), "bare-msgs/s")
	b.ReportMetric(bareT.Seconds()/oursT.Seconds(), "×bare")
}

func readAll(r *http.Request) []byte {
	body, _ := io.ReadAll(r.Body)
	return bytes.TrimRight(body, "\n")
}

// round posts every body at once, one poster each, and returns how long until all answered.
func round(b *testing.B, url string, bodies []string) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	failed := make(chan string, len(bodies))
	for _, body := range bodies {
		wg.Go(func() {
			resp, err := http.Post(url, "application/x-ndjson", strings.NewReader(body))
			if err != nil {
				failed <- err.Error()
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				failed <- resp.Status
			}
		})
	}
	wg.Wait()
	d := time.Since(start)
	close(failed)
	for f := range failed {
		b.Fatalf("post: %s", f)
	}
	return d
}

// yardstick is the bare ingest: decode each line's JSON, store it, one transaction per post.
func yardstick(b *testing.B) *httptest.Server {
	path := filepath.Join(b.TempDir(), "bare.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(FULL)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE updates(id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, body BLOB NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tx, err := db.BeginTx(r.Context(), nil)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer tx.Rollback()
		n := 0
		for _, line := range bytes.Split(readAll(r), []byte("\n")) {
			var m struct {
				Params struct {
					SessionID string          `json:"sessionId"`
					Update    json.RawMessage `json:"update"`
				} `json:"params"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			if _, err := tx.Exec(`INSERT INTO updates(session_id, body) VALUES(?,?)`, m.Params.SessionID, []byte(m.Params.Update)); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			n++
		}
		if err := tx.Commit(); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		fmt.Fprintf(w, `{"applied":%d}`, n)
	}))
}
