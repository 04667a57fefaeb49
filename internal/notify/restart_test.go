package notify_test

import (
	"context"
	"testing"

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
