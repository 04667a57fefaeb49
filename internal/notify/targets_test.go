package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/notify"
)

// TestTargetAddedElsewhereIsSent: the targets are kept in memory, but a delivery this
// instance claims for a target another instance added since is sent, not failed as removed.
func TestTargetAddedElsewhereIsSent(t *testing.T) {
	rc := newReceiver(t)
	st := store(t)
	static := flagTargets(t, "webhook+"+rc.URL+"/static")
	here := notify.New(st, newList(), notify.Config{BaseURL: base, Poll: time.Hour, Static: static})
	now := time.Now()
	w := plan("p")
	enqueue := func(target string) {
		t.Helper()
		if _, err := st.Enqueue(context.Background(), []notify.Delivery{{Key: notify.DeliveryKey(target, w.ID, notify.Began),
			Target: target, Event: notify.Began, Wait: w, Due: now, Status: notify.Pending, Created: now}}); err != nil {
			t.Fatal(err)
		}
	}
	enqueue(static[0].ID)
	sendDue(t, here) // the targets are read, and kept for an hour
	rc.next(t)
	elsewhere := notify.New(st, newList(), notify.Config{BaseURL: base})
	tg, err := elsewhere.AddTarget(context.Background(), notify.Target{Kind: notify.Webhook, URL: rc.URL + "/hook"})
	if err != nil {
		t.Fatal(err)
	}
	enqueue(tg.ID)
	sendDue(t, here)
	if r := rc.next(t); r.Path != "/hook" || r.Header.Get("X-Plandash-Event") != "wait.began" {
		t.Fatalf("received %s", r.Body)
	}
	lastDelivery(t, here, tg.ID, func(d notify.Delivery) bool { return d.Status == notify.Sent })
}
