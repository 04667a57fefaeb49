package notify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/notify"
)

// lastDelivery is the newest delivery of target once cond holds for it.
func lastDelivery(t *testing.T, n *notify.Notifier, target string, cond func(notify.Delivery) bool) notify.Delivery {
	t.Helper()
	var d notify.Delivery
	waitFor(t, func() bool {
		ds, _ := n.Deliveries(context.Background(), target, 1)
		if len(ds) == 1 && cond(ds[0]) {
			d = ds[0]
			return true
		}
		return false
	})
	return d
}

// TestBadTargetsCostBoundedTimeAndMemory: a target that hangs, redirects in a loop, answers
// 500, or answers 100 MB costs one bounded request each, and its error is recorded.
func TestBadTargetsCostBoundedTimeAndMemory(t *testing.T) {
	var hits atomic.Int64
	var written atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.Copy(io.Discard, r.Body) // the server notices a closed connection only once the body is read
		switch r.URL.Path {
		case "/hang":
			<-r.Context().Done()
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/huge":
			w.WriteHeader(http.StatusInternalServerError)
			chunk := make([]byte, 1<<20)
			for range 100 {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		path, want string
		status     notify.Status
	}{
		{"/hang", "deadline exceeded", notify.Pending},
		{"/loop", "redirect", notify.Failed},
		{"/huge", "500", notify.Pending},
	} {
		t.Run(c.path, func(t *testing.T) {
			hits.Store(0)
			src := newList()
			n := notify.New(store(t), src, notify.Config{BaseURL: base, Timeout: 300 * time.Millisecond, Static: flagTargets(t, "webhook+"+srv.URL+c.path)})
			run(t, n)
			src.set(plan("p"))
			d := lastDelivery(t, n, "flag-1", func(d notify.Delivery) bool { return d.Error != "" })
			if d.Status != c.status || !strings.Contains(d.Error, c.want) || len(d.Error) > 1000 {
				t.Fatalf("delivery = %+v; want %s with %q in a short error", d, c.status, c.want)
			}
			if h := hits.Load(); h != 1 {
				t.Fatalf("%d requests; want 1 (a retry waits its backoff)", h)
			}
			if c.path == "/huge" {
				waitFor(t, func() bool { return written.Load() < 100<<20 })
			}
		})
	}
}

// TestFailuresRetryThenGiveUp: a 500 is tried again after a backoff; one still failing after
// GiveUp fails for good.
func TestFailuresRetryThenGiveUp(t *testing.T) {
	rc := newReceiver(t)
	rc.status = http.StatusServiceUnavailable
	src, clk := newList(), newClock()
	n := notify.New(store(t), src, notify.Config{BaseURL: base, Now: clk.Now, GiveUp: time.Minute, Static: flagTargets(t, "webhook+"+rc.URL+"/hook")})
	run(t, n)
	src.set(plan("p"))
	first := rc.next(t)
	lastDelivery(t, n, "flag-1", func(d notify.Delivery) bool { return d.Attempts == 1 && d.Due.After(clk.Now()) })
	clk.add(2 * time.Second) // past the first backoff
	sendDue(t, n)
	second := rc.next(t)
	if first.Header.Get("Idempotency-Key") != second.Header.Get("Idempotency-Key") {
		t.Fatal("a retry carries another idempotency key")
	}
	lastDelivery(t, n, "flag-1", func(d notify.Delivery) bool { return d.Attempts == 2 && d.Due.After(clk.Now()) })
	clk.add(2 * time.Minute)
	sendDue(t, n)
	rc.next(t)
	d := lastDelivery(t, n, "flag-1", func(d notify.Delivery) bool { return d.Status == notify.Failed })
	if !strings.Contains(d.Error, "gave up") || !strings.Contains(d.Error, "503") {
		t.Fatalf("delivery = %+v", d)
	}
}

// TestHangingTargetDoesNotHoldUpOthers: with a target that never answers beside a quick one,
// every wait still reaches the quick one at once, past the point where every batch sent
// straight from an announcement is stuck on the hanging target (the outbox's sender takes
// over), and nothing that announces a wait ever waits on a target.
func TestHangingTargetDoesNotHoldUpOthers(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); hang.Close() })
	quick := newReceiver(t)
	src := newList()
	n := notify.New(store(t), src, notify.Config{BaseURL: base, Timeout: 5 * time.Second,
		Static: flagTargets(t, "webhook+"+hang.URL+"/hook", "webhook+"+quick.URL+"/hook")})
	run(t, n)
	const waits = 40 // more than the batches sent straight at once
	var open []notify.Wait
	start := time.Now()
	for i := range waits {
		open = append(open, plan(fmt.Sprint("w", i)))
		src.set(open...)
		time.Sleep(5 * time.Millisecond) // one announcement each
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("announcing %d waits took %s: something waited on the hanging target", waits, d)
	}
	seen := map[string]bool{}
	deadline := time.After(4 * time.Second) // within the hanging target's timeout
	for len(seen) < waits {
		select {
		case r := <-quick.got:
			var wh notify.WebhookBody
			decode(t, r.Body, &wh)
			for _, w := range wh.Waits {
				seen[w.ID] = true
			}
		case <-deadline:
			t.Fatalf("the quick target heard %d of %d waits while the other hung", len(seen), waits)
		}
	}
}

// TestEndToldOnlyWhereTheBeginningWas: a webhook added while a wait was open, and one whose
// announcement of it failed for good, are not told that the wait ended (a receiver would get
// wait.ended for a wait it never heard of); a wait each of them announced is.
func TestEndToldOnlyWhereTheBeginningWas(t *testing.T) {
	early, failing, late := newReceiver(t), newReceiver(t), newReceiver(t)
	failing.status = http.StatusBadRequest // a 4xx fails for good
	src := newList()
	n := runWith(t, src, "webhook+"+early.URL+"/hook", "webhook+"+failing.URL+"/hook")
	src.set(plan("a"))
	event := func(r received) (string, string) {
		var wh notify.WebhookBody
		if err := json.Unmarshal(r.Body, &wh); err != nil || len(wh.Waits) != 1 {
			t.Fatalf("webhook body %s: %v", r.Body, err)
		}
		return wh.Event, wh.Waits[0].ID
	}
	if ev, id := event(early.next(t)); ev != "wait.began" || id != "a" {
		t.Fatalf("first = %s %s", ev, id)
	}
	event(failing.next(t))
	lastDelivery(t, n, "flag-2", func(d notify.Delivery) bool { return d.Status == notify.Failed })
	failing.status = http.StatusOK
	if _, err := n.AddTarget(context.Background(), notify.Target{Kind: notify.Webhook, URL: late.URL + "/hook"}); err != nil {
		t.Fatal(err)
	}
	src.set(plan("b")) // a ended, b began
	for _, rc := range []*receiver{late, failing} {
		if ev, id := event(rc.next(t)); ev != "wait.began" || id != "b" {
			t.Fatalf("%s got %s %s first; want only b's beginning", rc.URL, ev, id)
		}
	}
	got := map[string]bool{}
	for range 2 {
		ev, id := event(early.next(t))
		got[ev+" "+id] = true
	}
	if !got["wait.ended a"] || !got["wait.began b"] {
		t.Fatalf("the first webhook got %v; want a's end and b's beginning", got)
	}
	src.set()
	for _, rc := range []*receiver{early, late, failing} {
		if ev, id := event(rc.next(t)); ev != "wait.ended" || id != "b" {
			t.Fatalf("%s got %s %s; want b's end", rc.URL, ev, id)
		}
	}
	for _, rc := range []*receiver{early, late, failing} {
		select {
		case r := <-rc.got:
			t.Fatalf("%s also got %s", rc.URL, r.Body)
		default:
		}
	}
}
