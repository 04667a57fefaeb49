package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/notify"
)

// TestEndedWhileDownIsAnnouncedAfterRestart: a wait announced before a stop that ended while
// plandash was down gets its "ended" after the restart, so its notification clears.
func TestEndedWhileDownIsAnnouncedAfterRestart(t *testing.T) {
	rc := newReceiver(t)
	st := store(t)
	targets := flagTargets(t, "webhook+"+rc.URL+"/hook")
	src := newList()
	first := notify.New(st, src, notify.Config{BaseURL: base, Static: targets})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { first.Run(ctx); close(done) }()
	src.set(plan("p"))
	if r := rc.next(t); r.Header.Get("X-Plandash-Event") != "wait.began" {
		t.Fatalf("first = %s", r.Body)
	}
	lastDelivery(t, first, "flag-1", func(d notify.Delivery) bool { return d.Status == notify.Sent })
	cancel()
	<-done

	later := newList()
	later.set() // the wait was answered while plandash was down
	run(t, notify.New(st, later, notify.Config{BaseURL: base, Static: targets}))
	r := rc.next(t)
	var wh notify.WebhookBody
	decode(t, r.Body, &wh)
	if wh.Event != "wait.ended" || len(wh.Waits) != 1 || wh.Waits[0].ID != "p" {
		t.Fatalf("after the restart: %s", r.Body)
	}
}

// TestLeasedBeforeAStopIsNotSentForAnEndedWait: an announcement stored and leased by an
// instance that stopped before sending it, whose wait ended meanwhile, is not sent by the
// instance that takes it over: nothing would ever clear it.
func TestLeasedBeforeAStopIsNotSentForAnEndedWait(t *testing.T) {
	rc := newReceiver(t)
	st := store(t)
	targets := flagTargets(t, "webhook+"+rc.URL+"/hook")
	now := time.Now()
	for _, id := range []string{"ended", "open"} {
		d := notify.Delivery{Key: notify.DeliveryKey("flag-1", id, notify.Began), Target: "flag-1", Event: notify.Began,
			Wait: plan(id), Due: now, Created: now}
		got, commit, err := st.EnqueueClaimed(context.Background(), "stopped", now, 50*time.Millisecond, []notify.Delivery{d})
		if err == nil {
			err = commit()
		}
		if err != nil || len(got) != 1 {
			t.Fatalf("EnqueueClaimed = %+v, %v", got, err)
		}
	}
	later := newList()
	later.set(plan("open")) // "ended" was answered while its announcer was down
	n := notify.New(st, later, notify.Config{BaseURL: base, Static: targets, Poll: 20 * time.Millisecond})
	run(t, n)
	var wh notify.WebhookBody
	decode(t, rc.next(t).Body, &wh)
	if len(wh.Waits) != 1 || wh.Waits[0].ID != "open" {
		t.Fatalf("sent %+v; want only the open wait", wh.Waits)
	}
	waitFor(t, func() bool {
		ds, _ := n.Deliveries(context.Background(), "flag-1", 10)
		for _, d := range ds {
			if d.Wait.ID == "ended" {
				return d.Status == notify.Skipped
			}
		}
		return false
	})
	select {
	case r := <-rc.got:
		t.Fatalf("a second request: %s", r.Body)
	case <-time.After(100 * time.Millisecond):
	}
}
