package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/store/postgres/pgtest"
	"github.com/plandash/plandash/internal/web"
)

// TestTwoInstancesSendEachOnce: two instances on one PostgreSQL database, both configured with
// the same webhook, both seeing every wait; each wait's announcement reaches the webhook once.
func TestTwoInstancesSendEachOnce(t *testing.T) {
	db := pgtest.URL(t)
	var mu sync.Mutex
	got := map[string]int{}
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b notify.WebhookBody
		json.NewDecoder(r.Body).Decode(&b)
		mu.Lock()
		for _, w := range b.Waits {
			got[b.Event+" "+w.ID]++
		}
		mu.Unlock()
	}))
	t.Cleanup(rc.Close)
	var urls []string
	var apps []*App
	for range 2 {
		target, err := notify.ParseFlag("webhook+"+rc.URL+"/hook", 1)
		if err != nil {
			t.Fatal(err)
		}
		data := t.TempDir()
		a, err := Open(context.Background(), Config{Config: web.Config{Log: slog.New(slog.DiscardHandler)},
			DataDir: data, Token: "tok", DB: db, PlansDir: data + "/plans", Notify: []notify.Target{target}})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { a.Serve(ctx, ln); close(done) }()
		t.Cleanup(func() { http.DefaultClient.CloseIdleConnections(); cancel(); <-done })
		select {
		case <-a.Listener.Ready():
		case <-time.After(20 * time.Second):
			t.Fatal("the instance never heard the others")
		}
		urls = append(urls, "http://"+ln.Addr().String())
		apps = append(apps, a)
	}
	var ids []string
	for i := range 6 {
		body := `{"title":"Plan ` + string(rune('A'+i)) + `","agent":"claude","timeout":"1h","plan":{"type":"markdown","markdown":"1. go"}}`
		req, _ := http.NewRequest("POST", urls[i%2]+"/api/v1/approvals", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ ID string }
		json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		ids = append(ids, "plan-"+r.ID)
	}
	// Every wait announced first (a wait decided before its announcement is sent is not
	// announced at all: that is not what this test is about).
	announcedBy := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		announced := 0
		for _, id := range ids {
			announced += got["wait.began "+id]
		}
		mu.Unlock()
		if announced >= len(ids) {
			break
		}
		if time.Now().After(announcedBy) {
			t.Fatalf("%d of %d waits announced within 30 s", announced, len(ids))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Decide half of them on the other instance: their ends are announced once, too.
	for i, id := range ids[:3] {
		req, _ := http.NewRequest("POST", urls[(i+1)%2]+"/api/v1/approvals/"+strings.TrimPrefix(id, "plan-")+"/decision", strings.NewReader(`{"action":"reject","comment":"not now"}`))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("decide %s: %d %q", id, resp.StatusCode, b)
		}
	}
	want := map[string]int{}
	for i, id := range ids {
		want["wait.began "+id] = 1
		if i < 3 {
			want["wait.ended "+id] = 1
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		complete := len(got) == len(want)
		for k, n := range got {
			if n > 1 || want[k] == 0 {
				mu.Unlock()
				t.Fatalf("%s received %d times (all: %v)", k, n, got)
			}
		}
		mu.Unlock()
		if complete {
			// Give a second sender the time it would need to send again, then look once more.
			time.Sleep(2 * time.Second)
			mu.Lock()
			defer mu.Unlock()
			for k, n := range got {
				if n != 1 {
					t.Fatalf("%s received %d times", k, n)
				}
			}
			return
		}
		if time.Now().After(deadline) {
			ds, _ := apps[0].Notifier.Deliveries(context.Background(), "flag-1", 50)
			for _, d := range ds {
				t.Logf("delivery %s: %s attempts %d %q", d.Key, d.Status, d.Attempts, d.Error)
			}
			t.Fatalf("received %v; want each of %v once", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
