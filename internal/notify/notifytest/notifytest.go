// Package notifytest is the contract every notify.Store passes: SQLite and PostgreSQL run it
// on real databases.
package notifytest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/notify"
)

// Run runs the contract on stores open makes; each call is a fresh, empty store. Stores that
// open shares a database with (open(t) twice on one database) are instances side by side:
// second, when not nil, opens another store on the database the last open made.
func Run(t *testing.T, open func(t *testing.T) notify.Store, second func(t *testing.T) notify.Store) {
	t.Run("EnqueueIsIdempotent", func(t *testing.T) { enqueueIdempotent(t, open(t)) })
	t.Run("ClaimLeases", func(t *testing.T) { claimLeases(t, open(t)) })
	t.Run("SkipLeavesLeased", func(t *testing.T) { skip(t, open(t)) })
	t.Run("EndClaimedSkipsThenStores", func(t *testing.T) { endClaimed(t, open(t)) })
	t.Run("LinksAreSingleUse", func(t *testing.T) { links(t, open(t)) })
	t.Run("Targets", func(t *testing.T) { targets(t, open(t)) })
	t.Run("SecretIsMadeOnce", func(t *testing.T) { secret(t, open(t)) })
	t.Run("PruneKeepsPendingAndRecent", func(t *testing.T) { prune(t, open(t)) })
	t.Run("UnendedAreSentBeginsWithoutEnd", func(t *testing.T) { unended(t, open(t)) })
	t.Run("EnqueueClaimedLeasesWhatIsDue", func(t *testing.T) { enqueueClaimed(t, open(t)) })
	t.Run("RemoteNamesTheMessage", func(t *testing.T) { remote(t, open(t)) })
	t.Run("RemoteWhileTheAnnouncementIsRecorded", func(t *testing.T) { remoteWhileRecorded(t, open(t)) })
	// Two instances on one database (the same store where there is no second).
	pair := func(fn func(t *testing.T, a, b notify.Store)) func(t *testing.T) {
		return func(t *testing.T) {
			a := open(t)
			b := a
			if second != nil {
				b = second(t)
			}
			fn(t, a, b)
		}
	}
	t.Run("EnqueueClaimedOnceAcrossInstances", pair(enqueueClaimedOnce))
	t.Run("EnqueueClaimedHoldsItsKeysBeforeItsCommit", pair(keysBeforeCommit))
	t.Run("ConcurrentClaimsNeverOverlap", pair(concurrentClaims))
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func delivery(target, wait string, due time.Time) notify.Delivery {
	return notify.Delivery{Key: notify.DeliveryKey(target, wait, notify.Began), Target: target, Event: notify.Began,
		Wait: notify.Wait{ID: wait, Kind: "plan", Title: "Plan " + wait, URL: "/approvals/" + wait}, Due: due, Created: t0}
}

func enqueueIdempotent(t *testing.T, s notify.Store) {
	ctx := context.Background()
	n, err := s.Enqueue(ctx, []notify.Delivery{delivery("t1", "w1", t0), delivery("t2", "w1", t0)})
	if err != nil || n != 2 {
		t.Fatalf("Enqueue = %d, %v; want 2 new", n, err)
	}
	n, err = s.Enqueue(ctx, []notify.Delivery{delivery("t1", "w1", t0), delivery("t1", "w2", t0)})
	if err != nil || n != 1 {
		t.Fatalf("Enqueue again = %d, %v; want only w2 new", n, err)
	}
	got, err := s.Recent(ctx, "t1", 10)
	if err != nil || len(got) != 2 || got[0].Wait.ID != "w2" || got[1].Wait.Title != "Plan w1" || got[1].Status != notify.Pending {
		t.Fatalf("Recent = %+v, %v; want w2 then w1, pending", got, err)
	}
}

func claimLeases(t *testing.T, s notify.Store) {
	ctx := context.Background()
	if _, err := s.Enqueue(ctx, []notify.Delivery{delivery("t", "now", t0), delivery("t", "later", t0.Add(time.Minute))}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Claim(ctx, "a", t0, 30*time.Second, 10)
	if err != nil || len(got) != 1 || got[0].Wait.ID != "now" || got[0].Attempts != 1 {
		t.Fatalf("Claim = %+v, %v; want the one due, first attempt", got, err)
	}
	if again, err := s.Claim(ctx, "b", t0.Add(10*time.Second), 30*time.Second, 10); err != nil || len(again) != 0 {
		t.Fatalf("Claim during the lease = %+v, %v; want nothing", again, err)
	}
	// a stops (killed) without finishing: when the lease ends, b takes it over.
	taken, err := s.Claim(ctx, "b", t0.Add(31*time.Second), 30*time.Second, 10)
	if err != nil || len(taken) != 1 || taken[0].Key != got[0].Key || taken[0].Attempts != 2 {
		t.Fatalf("Claim after the lease = %+v, %v; want the same delivery, second attempt", taken, err)
	}
	d := got[0]
	d.Status, d.Done = notify.Sent, t0.Add(32*time.Second)
	if ok, err := s.Finish(ctx, "a", d); err != nil || ok {
		t.Fatalf("Finish by the old owner = %v, %v; want refused", ok, err)
	}
	d = taken[0]
	d.Status, d.Error, d.Due = notify.Pending, "500", t0.Add(40*time.Second)
	if ok, err := s.Finish(ctx, "b", d); err != nil || !ok {
		t.Fatalf("Finish (retry) = %v, %v", ok, err)
	}
	if r, _ := s.Claim(ctx, "b", t0.Add(39*time.Second), 30*time.Second, 10); len(r) != 0 {
		t.Fatalf("a retry was claimed before it was due: %+v", r)
	}
	r, err := s.Claim(ctx, "b", t0.Add(40*time.Second), 30*time.Second, 10)
	if err != nil || len(r) != 1 || r[0].Error != "500" {
		t.Fatalf("Claim of the retry = %+v, %v", r, err)
	}
	d = r[0]
	d.Status, d.Error, d.Done = notify.Sent, "", t0.Add(41*time.Second)
	if ok, err := s.Finish(ctx, "b", d); err != nil || !ok {
		t.Fatalf("Finish = %v, %v", ok, err)
	}
	recent, _ := s.Recent(ctx, "t", 1)
	if len(recent) != 1 || recent[0].Status != notify.Sent && recent[0].Wait.ID != "later" {
		t.Fatalf("Recent = %+v", recent)
	}
}

func skip(t *testing.T, s notify.Store) {
	ctx := context.Background()
	if _, err := s.Enqueue(ctx, []notify.Delivery{delivery("leased", "w", t0), delivery("waiting", "w", t0.Add(time.Minute))}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ctx, "a", t0, 30*time.Second, 10); err != nil {
		t.Fatal(err)
	}
	got, err := s.Skip(ctx, []string{"w", "other"}, notify.Began, t0.Add(time.Second), "ended")
	if err != nil || len(got) != 1 || got[0] != notify.DeliveryKey("waiting", "w", notify.Began) {
		t.Fatalf("Skip = %v, %v; want only the unleased delivery", got, err)
	}
	r, _ := s.Recent(ctx, "waiting", 1)
	if len(r) != 1 || r[0].Status != notify.Skipped || r[0].Error != "ended" {
		t.Fatalf("skipped delivery = %+v", r)
	}
}

// endClaimed ends a wait announced on one target and still waiting out its delay on another:
// the delayed announcement is skipped, and only the other target's end is stored and leased,
// in one call.
func endClaimed(t *testing.T, s notify.Store) {
	ctx := context.Background()
	if _, err := s.Enqueue(ctx, []notify.Delivery{delivery("sent", "w", t0), delivery("waiting", "w", t0.Add(time.Minute))}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ctx, "a", t0, 30*time.Second, 10); err != nil {
		t.Fatal(err)
	}
	var heard []string
	got, err := s.EndClaimed(ctx, "a", t0.Add(time.Second), time.Minute, []string{"w", "other"}, notify.Began, "ended",
		func(skipped []string) []notify.Delivery {
			heard = skipped
			var ds []notify.Delivery
			for _, target := range []string{"sent", "waiting"} {
				if !slices.Contains(skipped, notify.DeliveryKey(target, "w", notify.Began)) {
					end := delivery(target, "w", t0.Add(time.Second))
					end.Key, end.Event = notify.DeliveryKey(target, "w", notify.Ended), notify.Ended
					ds = append(ds, end)
				}
			}
			return ds
		})
	if len(heard) != 1 || heard[0] != notify.DeliveryKey("waiting", "w", notify.Began) {
		t.Fatalf("EndClaimed told then of %v; want only the delayed announcement skipped", heard)
	}
	if err != nil || len(got) != 1 || got[0].Target != "sent" || got[0].Event != notify.Ended || got[0].Attempts != 1 || got[0].ID == 0 {
		t.Fatalf("EndClaimed = %+v, %v; want the end on the target that heard the beginning, leased", got, err)
	}
	if again, err := s.Claim(ctx, "b", t0.Add(time.Second), time.Minute, 10); err != nil || len(again) != 0 {
		t.Fatalf("Claim after EndClaimed = %+v, %v; want nothing (the end is leased, the skipped one done)", again, err)
	}
	r, _ := s.Recent(ctx, "waiting", 1)
	if len(r) != 1 || r[0].Status != notify.Skipped || r[0].Error != "ended" {
		t.Fatalf("skipped delivery = %+v", r)
	}
}

func links(t *testing.T, s notify.Store) {
	ctx := context.Background()
	l := notify.Link{Hash: "h1", WaitID: "w", Action: "approve", Label: "Approve", Channel: "ntfy", Created: t0, Expires: t0.Add(time.Hour)}
	if err := s.AddLink(ctx, l); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Link(ctx, "nope"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("Link(unknown) = %v; want not found", err)
	}
	got, err := s.Link(ctx, "h1")
	if err != nil || got.WaitID != "w" || got.Action != "approve" || !got.Used.IsZero() || !got.Expires.Equal(l.Expires) {
		t.Fatalf("Link = %+v, %v", got, err)
	}
	var wg sync.WaitGroup
	wins := make(chan bool, 8)
	for range 8 {
		wg.Go(func() {
			ok, err := s.UseLink(ctx, "h1", t0.Add(time.Minute))
			if err != nil {
				t.Error(err)
			}
			wins <- ok
		})
	}
	wg.Wait()
	close(wins)
	n := 0
	for ok := range wins {
		if ok {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d of 8 uses at once won; want exactly 1", n)
	}
	if got, _ := s.Link(ctx, "h1"); !got.Used.Equal(t0.Add(time.Minute)) {
		t.Fatalf("Used = %v", got.Used)
	}
	if err := s.UnuseLink(ctx, "h1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.UseLink(ctx, "h1", t0); err != nil || !ok {
		t.Fatalf("UseLink after UnuseLink = %v, %v", ok, err)
	}
}

func targets(t *testing.T, s notify.Store) {
	ctx := context.Background()
	a := notify.Target{ID: "a", Kind: notify.Webhook, URL: "https://example.com/h", Secret: "s", Created: t0, Delay: time.Second,
		Filter: notify.Filter{Kinds: []string{"plan"}}}
	b := notify.Target{ID: "b", Kind: notify.Ntfy, URL: "https://ntfy.sh/x", Created: t0.Add(time.Second)}
	for _, x := range []notify.Target{b, a} {
		if err := s.PutTarget(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Targets(ctx)
	if err != nil || len(got) != 2 || got[0].ID != "a" || got[0].Secret != "s" || got[0].Filter.Kinds[0] != "plan" || got[0].Delay != time.Second {
		t.Fatalf("Targets = %+v, %v", got, err)
	}
	if err := s.DeleteTarget(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTarget(ctx, "a"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("DeleteTarget twice = %v; want not found", err)
	}
}

func secret(t *testing.T, s notify.Store) {
	ctx := context.Background()
	calls := 0
	mk := func(v string) func() ([]byte, error) {
		return func() ([]byte, error) { calls++; return []byte(v), nil }
	}
	a, err := s.Secret(ctx, "k", mk("first"))
	if err != nil || string(a) != "first" {
		t.Fatalf("Secret = %q, %v", a, err)
	}
	b, err := s.Secret(ctx, "k", mk("second"))
	if err != nil || string(b) != "first" || calls != 1 {
		t.Fatalf("Secret again = %q, %v (%d makes); want the stored one", b, err, calls)
	}
}

func concurrentClaims(t *testing.T, a, b notify.Store) {
	ctx := context.Background()
	var ds []notify.Delivery
	for i := range 60 {
		ds = append(ds, delivery("t", fmt.Sprint("w", i), t0))
	}
	if _, err := a.Enqueue(ctx, ds); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, s := range []notify.Store{a, b, a, b} {
		owner := fmt.Sprint("owner", i)
		wg.Go(func() {
			for {
				got, err := s.Claim(ctx, owner, t0, time.Minute, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, d := range got {
					if prev, ok := seen[d.Key]; ok {
						t.Errorf("%s claimed by %s and %s", d.Key, prev, owner)
					}
					seen[d.Key] = owner
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 60 {
		t.Fatalf("%d of 60 claimed", len(seen))
	}
}

func prune(t *testing.T, s notify.Store) {
	ctx := context.Background()
	if _, err := s.Enqueue(ctx, []notify.Delivery{delivery("t", "old", t0), delivery("t", "new", t0), delivery("t", "waiting", t0.Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Claim(ctx, "a", t0, time.Minute, 10)
	if err != nil || len(got) != 2 {
		t.Fatalf("Claim = %+v, %v", got, err)
	}
	for _, d := range got {
		d.Status, d.Done = notify.Sent, t0
		if d.Wait.ID == "new" {
			d.Done = t0.Add(48 * time.Hour)
		}
		if _, err := s.Finish(ctx, "a", d); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []notify.Link{{Hash: "gone", Expires: t0}, {Hash: "live", Expires: t0.Add(72 * time.Hour)}} {
		if err := s.AddLink(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.Prune(ctx, t0.Add(24*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("Prune = %d, %v; want the old delivery and the expired link", n, err)
	}
	left, _ := s.Recent(ctx, "t", 10)
	if len(left) != 2 || left[0].Wait.ID != "waiting" || left[1].Wait.ID != "new" {
		t.Fatalf("left %+v", left)
	}
	if _, err := s.Link(ctx, "live"); err != nil {
		t.Fatalf("the live link went: %v", err)
	}
}

func unended(t *testing.T, s notify.Store) {
	ctx := context.Background()
	ended := delivery("t", "done", t0)
	ended.Key, ended.Event = notify.DeliveryKey("t", "done", notify.Ended), notify.Ended
	if _, err := s.Enqueue(ctx, []notify.Delivery{delivery("t", "open", t0), delivery("t", "done", t0), ended, delivery("t", "unsent", t0.Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Claim(ctx, "a", t0, time.Minute, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range got {
		d.Status, d.Done = notify.Sent, t0
		s.Finish(ctx, "a", d)
	}
	u, err := s.Unended(ctx, 10)
	if err != nil || len(u) != 1 || u[0].Wait.ID != "open" || u[0].Target != "t" {
		t.Fatalf("Unended = %+v, %v; want only the sent begin with no end", u, err)
	}
}

// stored is EnqueueClaimed, committed.
func stored(ctx context.Context, s notify.Store, owner string, now time.Time, lease time.Duration, ds []notify.Delivery) ([]notify.Delivery, error) {
	got, commit, err := s.EnqueueClaimed(ctx, owner, now, lease, ds)
	if err != nil {
		return nil, err
	}
	return got, commit()
}

func enqueueClaimed(t *testing.T, s notify.Store) {
	ctx := context.Background()
	now, later := delivery("t", "now", t0), delivery("t", "later", t0.Add(time.Minute))
	now.Links = []notify.Link{{Hash: "h-now", WaitID: "now", Action: "approve", Expires: t0.Add(time.Hour)}}
	got, err := stored(ctx, s, "a", t0, 30*time.Second, []notify.Delivery{now, later})
	if err != nil || len(got) != 1 || got[0].Wait.ID != "now" || got[0].ID == 0 || got[0].Attempts != 1 {
		t.Fatalf("EnqueueClaimed = %+v, %v; want the one due, with its id, first attempt", got, err)
	}
	if l, err := s.Link(ctx, "h-now"); err != nil || l.Action != "approve" {
		t.Fatalf("the new delivery's link = %+v, %v; want it stored with it", l, err)
	}
	// Stored already: not returned again, and its links are not stored.
	dup := delivery("t", "now", t0)
	dup.Links = []notify.Link{{Hash: "h-dup", WaitID: "now", Expires: t0.Add(time.Hour)}}
	if again, err := stored(ctx, s, "b", t0, 30*time.Second, []notify.Delivery{dup}); err != nil || len(again) != 0 {
		t.Fatalf("EnqueueClaimed of a stored key = %+v, %v; want nothing to send", again, err)
	}
	if _, err := s.Link(ctx, "h-dup"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("a repeat's link was stored (%v)", err)
	}
	// It is leased: nobody claims it during the lease; after it (a crash), someone does.
	if c, err := s.Claim(ctx, "b", t0.Add(10*time.Second), 30*time.Second, 10); err != nil || len(c) != 0 {
		t.Fatalf("Claim during the lease = %+v, %v", c, err)
	}
	c, err := s.Claim(ctx, "b", t0.Add(31*time.Second), 30*time.Second, 10)
	if err != nil || len(c) != 1 || c[0].Key != got[0].Key || c[0].Attempts != 2 {
		t.Fatalf("Claim after the lease = %+v, %v; want the leased one, second attempt", c, err)
	}
	d := got[0]
	d.Status, d.Done = notify.Sent, t0.Add(time.Second)
	if ok, err := s.Finish(ctx, "a", d); err != nil || ok {
		t.Fatalf("Finish by the owner who lost the lease = %v, %v", ok, err)
	}
	// The one due later is pending, unleased: claimed when due.
	if c, err := s.Claim(ctx, "b", t0.Add(time.Minute), 30*time.Second, 10); err != nil || len(c) != 1 || c[0].Wait.ID != "later" {
		t.Fatalf("Claim when the later one is due = %+v, %v", c, err)
	}
}

func enqueueClaimedOnce(t *testing.T, a, b notify.Store) {
	ctx := context.Background()
	var ds []notify.Delivery
	for i := range 30 {
		ds = append(ds, delivery("t", fmt.Sprint("w", i), t0))
	}
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	for i, s := range []notify.Store{a, b, a, b} {
		wg.Go(func() {
			got, err := stored(ctx, s, fmt.Sprint("owner", i), t0, time.Minute, ds)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, d := range got {
				if prev, dup := seen[d.Key]; dup {
					t.Errorf("%s returned to %s and owner%d", d.Key, prev, i)
				}
				seen[d.Key] = fmt.Sprint("owner", i)
			}
		})
	}
	wg.Wait()
	if len(seen) != len(ds) {
		t.Fatalf("%d of %d returned to a sender", len(seen), len(ds))
	}
}

// keysBeforeCommit: the notifier sends what EnqueueClaimed returned before its commit; an
// instance storing the same key meanwhile waits for that commit and gets nothing to send.
func keysBeforeCommit(t *testing.T, a, b notify.Store) {
	ctx := context.Background()
	got, commit, err := a.EnqueueClaimed(ctx, "a", t0, time.Minute, []notify.Delivery{delivery("t", "w", t0)})
	if err != nil || len(got) != 1 {
		t.Fatalf("EnqueueClaimed = %+v, %v", got, err)
	}
	other := make(chan []notify.Delivery, 1)
	go func() {
		again, err := stored(ctx, b, "b", t0, time.Minute, []notify.Delivery{delivery("t", "w", t0)})
		if err != nil {
			t.Error(err)
		}
		other <- again
	}()
	if err := commit(); err != nil {
		t.Fatal(err)
	}
	if again := <-other; len(again) != 0 {
		t.Fatalf("another instance storing the key while the first had not committed got %+v to send; want nothing", again)
	}
}

func remote(t *testing.T, s notify.Store) {
	ctx := context.Background()
	if _, _, _, err := s.Remote(ctx, "t", "w1"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("Remote before any send = %v; want not found", err)
	}
	got, err := stored(ctx, s, "a", t0, time.Minute, []notify.Delivery{delivery("t", "w1", t0), delivery("t", "w2", t0), delivery("t", "w3", t0), delivery("u", "w1", t0)})
	if err != nil || len(got) != 4 {
		t.Fatalf("EnqueueClaimed = %+v, %v", got, err)
	}
	if _, _, _, err := s.Remote(ctx, "t", "w1"); errs.KindOf(err) != errs.Conflict {
		t.Fatalf("Remote while the announcement is being sent = %v; want a conflict (ask again)", err)
	}
	if as, err := s.Remotes(ctx, "t", []string{"w1", "w2", "none"}); err != nil || len(as) != 2 || !as["w1"].Pending || !as["w2"].Pending {
		t.Fatalf("Remotes while the announcements are being sent = %+v, %v; want w1 and w2 pending", as, err)
	}
	for _, d := range got {
		// w1 and w2 went out in one message; w3 failed; u's message has its own id.
		d.Status, d.Done, d.Remote = notify.Sent, t0, "m-12"
		switch {
		case d.Target == "u":
			d.Remote = "m-u"
		case d.Wait.ID == "w3":
			d.Status, d.Error = notify.Failed, "400"
		}
		if ok, err := s.Finish(ctx, "a", d); err != nil || !ok {
			t.Fatalf("Finish = %v, %v", ok, err)
		}
	}
	if r, n, open, err := s.Remote(ctx, "t", "w2"); err != nil || r != "m-12" || n != 2 || open != 1 {
		t.Fatalf("Remote(t, w2) = %q %d %d %v; want m-12, announcing 2, w1 still open", r, n, open, err)
	}
	// Many at once say what Remote says of each.
	as, err := s.Remotes(ctx, "t", []string{"w1", "w2", "w3", "none"})
	want := notify.Announcement{Remote: "m-12", Waits: 2, Open: 1}
	if err != nil || len(as) != 2 || as["w1"] != want || as["w2"] != want {
		t.Fatalf("Remotes(t, w1 w2 w3 none) = %+v, %v; want w1 and w2 in m-12, each with the other open", as, err)
	}
	// w1's end is stored: its message has no other wait open for w2 any more.
	end := delivery("t", "w1", t0)
	end.Key, end.Event = notify.DeliveryKey("t", "w1", notify.Ended), notify.Ended
	if _, err := s.Enqueue(ctx, []notify.Delivery{end}); err != nil {
		t.Fatal(err)
	}
	if r, n, open, err := s.Remote(ctx, "t", "w2"); err != nil || r != "m-12" || n != 2 || open != 0 {
		t.Fatalf("Remote(t, w2) after w1's end = %q %d %d %v; want none open", r, n, open, err)
	}
	if r, n, open, err := s.Remote(ctx, "u", "w1"); err != nil || r != "m-u" || n != 1 || open != 0 {
		t.Fatalf("Remote(u, w1) = %q %d %d %v", r, n, open, err)
	}
	if _, _, _, err := s.Remote(ctx, "t", "w3"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("Remote of a failed delivery = %v; want not found", err)
	}
	if _, err := s.Prune(ctx, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.Remote(ctx, "t", "w2"); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("Remote after pruning = %v; want not found", err)
	}
}

// remoteWhileRecorded asks Remote, over and over, while the announcements it asks about are
// recorded as sent: every answer is "still being sent" or the message, never "nothing was
// announced" (which would skip the end of a wait that was announced).
func remoteWhileRecorded(t *testing.T, s notify.Store) {
	ctx := context.Background()
	var ds []notify.Delivery
	for i := range 40 {
		ds = append(ds, delivery("t", fmt.Sprint("w", i), t0))
	}
	got, err := stored(ctx, s, "a", t0, time.Minute, ds)
	if err != nil || len(got) != len(ds) {
		t.Fatalf("EnqueueClaimed = %d, %v", len(got), err)
	}
	done := make(chan struct{})
	defer func() { <-done }() // also when a check fails: the store closes when the test ends
	go func() {
		defer close(done)
		for _, d := range got {
			d.Status, d.Done, d.Remote = notify.Sent, t0, "m-"+d.Wait.ID
			if ok, err := s.Finish(ctx, "a", d); err != nil || !ok {
				t.Errorf("Finish = %v, %v", ok, err)
				return
			}
		}
	}()
	for _, d := range got {
		for {
			r, _, _, err := s.Remote(ctx, "t", d.Wait.ID)
			if errs.KindOf(err) == errs.Conflict {
				continue
			}
			if err != nil || r != "m-"+d.Wait.ID {
				t.Fatalf("Remote(t, %s) while it is recorded = %q, %v; want its message or a conflict", d.Wait.ID, r, err)
			}
			break
		}
	}
}
