package notify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// Config tunes a Notifier.
type Config struct {
	// BaseURL is the absolute URL plandash is reached at (http://127.0.0.1:7420): links and
	// "Open" buttons point under it.
	BaseURL string
	Static  []Target         // targets from --notify: not stored, not editable
	Now     func() time.Time // time.Now when nil
	Log     *slog.Logger     // slog.Default when nil
	Client  *http.Client     // NewClient() when nil
	Owner   string           // this instance's name on the leases it takes; random when ""
	Lease   time.Duration    // how long a claimed delivery is this instance's; 30s when zero
	GiveUp  time.Duration    // a delivery still failing this long after it was due fails for good; 1h when zero
	Poll    time.Duration    // how often the outbox is read when nothing kicks it; 1s when zero
	Timeout time.Duration    // the most one send may take; 10s when zero
	Subject string           // the VAPID subject (mailto: or https:); a placeholder when ""
	// OnBegin is told of every wait that begins while this instance runs (the desktop opener).
	OnBegin func(Wait)
}

// Notifier watches the list of waits, stores what is due for each target in the outbox, and
// sends it. It never blocks the gate or ingest: it reads the list on its own goroutine and
// talks to targets on others.
type Notifier struct {
	cfg   Config
	store Store
	src   Source

	mu    sync.Mutex
	open  map[string]Wait      // the list as last read; nil until read once
	gone  map[string]time.Time // waits seen to end, when
	wake  chan struct{}        // reads the outbox before the next poll (see wakeFor)
	vapid *VAPID

	// busy counts each target's sends under way: a target that hangs holds at most
	// maxPerTarget of them, and what else is due for it waits in the outbox meanwhile.
	busy     map[string]int
	sends    sync.WaitGroup // the sends under way, which Run waits for
	watchers sync.WaitGroup // the goroutine watching the list (see watch), which Run waits for
	rec      recorder       // outcomes waiting for the outbox (see record)

	tmu     sync.Mutex
	targets []Target  // every target as last read (see known)
	readAt  time.Time // when; zero: read them again
}

// maxPerTarget is how many sends to one target may be under way at once.
const maxPerTarget = 4

// New makes a notifier over store that follows src.
func New(store Store, src Source, cfg Config) *Notifier {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Client == nil {
		cfg.Client = NewClient()
	}
	if cfg.Owner == "" {
		host, _ := os.Hostname()
		b := make([]byte, 6)
		rand.Read(b)
		cfg.Owner = host + "-" + hex.EncodeToString(b)
	}
	cfg.Lease = cmpOr(cfg.Lease, 30*time.Second)
	cfg.GiveUp = cmpOr(cfg.GiveUp, time.Hour)
	cfg.Poll = cmpOr(cfg.Poll, time.Second)
	cfg.Timeout = min(cmpOr(cfg.Timeout, sendTimeout), sendTimeout)
	if cfg.Subject == "" {
		cfg.Subject = "mailto:plandash@localhost.invalid"
		if strings.HasPrefix(cfg.BaseURL, "https://") {
			cfg.Subject = cfg.BaseURL
		}
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Notifier{cfg: cfg, store: store, src: src, wake: make(chan struct{}, 1), busy: map[string]int{}}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Run follows the waits and sends the outbox until ctx ends.
func (n *Notifier) Run(ctx context.Context) {
	n.watchers.Go(func() { n.watch(ctx, 0, true) })
	n.sendLoop(ctx)
	n.watchers.Wait()
	n.sends.Wait()
}

// SetBaseURL sets the absolute URL links point under, when it is known only once the server
// listens; a URL set in Config is kept.
func (n *Notifier) SetBaseURL(u string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cfg.BaseURL == "" {
		n.cfg.BaseURL = strings.TrimRight(u, "/")
	}
}

// Base is the absolute URL links point under.
func (n *Notifier) Base() string { return n.base() }

func (n *Notifier) base() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cfg.BaseURL
}

// stillOpen reports whether a wait is worth announcing now: not seen to end, and in the list
// as last read. A delivery stored before a restart (or by an instance that stopped) whose wait
// ended meanwhile is in neither: it is not sent, since nothing would ever clear it.
func (n *Notifier) stillOpen(id string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, gone := n.gone[id]; gone {
		return false
	}
	if n.open == nil {
		return true // the list was not read yet
	}
	_, listed := n.open[id]
	return listed
}

// IsOpen reports whether the wait may still be open: false only for a wait this notifier saw
// end. A wait it has not seen yet (another instance announced it first) counts as open; the
// answer itself refuses one that ended.
func (n *Notifier) IsOpen(id string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, gone := n.gone[id]
	return !gone
}

// maxGone bounds the memory of ended waits: the oldest are forgotten first.
const maxGone = 10000

// watch reads the list each time it changes and stores what the change announces; first is
// true until the whole list was read once. The goroutine that stored notifications due now
// sends them itself, as soon as their rows are written, and their commit, then watching, goes
// on on a new goroutine: on an idle machine, waking another goroutine for the send cost as
// much as the send.
func (n *Notifier) watch(ctx context.Context, seq uint64, first bool) {
	for ctx.Err() == nil {
		u, err := n.src.Await(ctx, seq)
		if err != nil {
			if ctx.Err() == nil {
				n.cfg.Log.Warn("notify: reading the waits", "err", err)
				sleep(ctx, time.Second)
			}
			continue
		}
		seq = u.Seq
		began, ended := n.diff(u)
		if first && u.Whole {
			ended = append(ended, n.endedWhileAway(ctx, u.Open)...)
			first = false
		}
		claimed, targets, commit, err := n.announce(ctx, began, ended)
		if err != nil && ctx.Err() == nil {
			n.cfg.Log.Error("notify: storing notifications", "err", err)
		}
		if len(claimed) == 0 {
			n.commit(ctx, commit)
			continue
		}
		// The POST starts while the outbox commits, on another goroutine, which then watches
		// on: the commit was half of a lone wait's way to its webhook. This instance holds the
		// deliveries' keys from their insert on (see Store.EnqueueClaimed), so no other sends
		// them meanwhile. If the commit fails or the process dies first, the wait is
		// announced again at the next start with the same idempotency key, which is what a
		// receiver deduplicates by. The answer links the message carries are in the same
		// transaction: on SQLite a link is read on the outbox's writer, so a tap waits for the
		// commit; on PostgreSQL a tap within the commit's fraction of a millisecond finds no
		// link, and one after finds it. The next change is read only once the commit is done,
		// so a wait's end is never stored before its beginning; outcomes are recorded after it.
		committed := make(chan struct{})
		n.watchers.Go(func() {
			n.commit(ctx, commit)
			close(committed)
			n.watch(ctx, seq, first)
		})
		n.sendBatch(ctx, claimed, targets, true, committed)
		return
	}
}

// commit runs the commit announce returned, if any.
func (n *Notifier) commit(ctx context.Context, commit func() error) {
	if commit == nil {
		return
	}
	if err := commit(); err != nil && ctx.Err() == nil {
		n.cfg.Log.Error("notify: storing notifications", "err", err)
	}
}

// endedWhileAway is the waits announced before this start whose end no target heard: they
// ended while plandash was down, and their notifications still show.
func (n *Notifier) endedWhileAway(ctx context.Context, list []Wait) []Wait {
	ds, err := n.store.Unended(ctx, 1000)
	if err != nil {
		n.cfg.Log.Warn("notify: reading what was announced before the start", "err", err)
		return nil
	}
	open := map[string]bool{}
	for _, w := range list {
		open[w.ID] = true
	}
	seen := map[string]bool{}
	var out []Wait
	for _, d := range ds {
		if !open[d.Wait.ID] && !seen[d.Wait.ID] {
			seen[d.Wait.ID] = true
			out = append(out, d.Wait)
		}
	}
	return out
}

// diff applies an update to the list and returns what began and what ended since the last.
// The first list begins everything in it: the outbox's keys drop what was announced before a
// restart.
func (n *Notifier) diff(u Update) (began, ended []Wait) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.gone == nil {
		n.gone = map[string]time.Time{}
	}
	now := n.cfg.Now()
	if u.Whole || n.open == nil {
		next := make(map[string]Wait, len(u.Open))
		for _, w := range u.Open {
			next[w.ID] = w
			if _, ok := n.open[w.ID]; !ok {
				began = append(began, w)
			}
		}
		for id, w := range n.open {
			if _, ok := next[id]; !ok {
				ended = append(ended, w)
				n.gone[id] = now
			}
		}
		n.open = next
	} else {
		for _, w := range u.Open {
			if _, ok := n.open[w.ID]; !ok {
				began = append(began, w)
			}
			n.open[w.ID] = w
		}
		for _, id := range u.Gone {
			if w, ok := n.open[id]; ok {
				ended = append(ended, w)
				n.gone[id] = now
				delete(n.open, id)
			}
		}
	}
	if len(n.gone) > maxGone {
		for id, at := range n.gone {
			if now.Sub(at) > time.Hour || len(n.gone) > maxGone {
				delete(n.gone, id)
			}
		}
	}
	return began, ended
}

// announce stores a delivery per target for each wait that began, and one that clears or
// updates the notification for each that ended, unless its announcement was still waiting
// out the target's delay: then neither is sent.
//
// What is due at once is stored already leased to this instance, with its answer links, in
// one transaction, and returned with the targets, to be posted straight away (the outcome is
// recorded after), and with the transaction's commit when the caller is to run it (see
// watch): no poll between a wait's beginning and its POST. A crash after the commit loses
// nothing (the lease runs out and a sender claims it, same key); another instance that
// stores the same key gets nothing back, so one sends it.
func (n *Notifier) announce(ctx context.Context, began, ended []Wait) ([]Delivery, []Target, func() error, error) {
	if len(began) == 0 && len(ended) == 0 {
		return nil, nil, nil, nil
	}
	targets, err := n.known(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	now := n.cfg.Now()
	ds := make([]Delivery, 0, (len(began)+len(ended))*len(targets))
	for _, w := range began {
		if n.cfg.OnBegin != nil {
			n.cfg.OnBegin(w)
		}
		for _, t := range targets {
			if t.Filter.Allows(w) {
				ds = append(ds, Delivery{Key: DeliveryKey(t.ID, w.ID, Began), Target: t.ID, Event: Began, Wait: w, Due: now.Add(t.Delay), Status: Pending, Created: now})
			}
		}
	}
	if len(targets) == 0 {
		// Nothing to store: no end is told where no beginning was, and how each wait ended
		// (a read per wait) is worth reading only for a target.
		return nil, nil, nil, nil
	}
	if len(ended) == 0 {
		if len(ds) == 0 {
			return nil, nil, nil, nil
		}
		n.attachLinks(targets, ds, now)
		claimed, commit, err := n.store.EnqueueClaimed(ctx, n.cfg.Owner, now, n.cfg.Lease, ds)
		return claimed, targets, commit, err
	}
	ids := make([]string, len(ended))
	o, says := n.src.(Outcomes)
	for i, w := range ended {
		ids[i] = w.ID
		if says {
			ended[i].Outcome = clip(o.Outcome(ctx, w.ID), maxOutcome)
		}
	}
	// The announcements still waiting out a delay are skipped, and the ends of the others
	// stored, in one transaction: an end is told only where its beginning was.
	claimed, err := n.store.EndClaimed(ctx, n.cfg.Owner, now, n.cfg.Lease, ids, Began, "the wait ended before the delay was over",
		func(keys []string) []Delivery {
			skipped := make(map[string]bool, len(keys))
			for _, k := range keys {
				skipped[k] = true
			}
			all := ds[:len(ds):len(ds)]
			for _, w := range ended {
				for _, t := range targets {
					if t.Filter.Allows(w) && !skipped[DeliveryKey(t.ID, w.ID, Began)] {
						all = append(all, Delivery{Key: DeliveryKey(t.ID, w.ID, Ended), Target: t.ID, Event: Ended, Wait: w, Due: now, Status: Pending, Created: now})
					}
				}
			}
			n.attachLinks(targets, all, now)
			return all
		})
	return claimed, targets, nil, err
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// Targets is every target: the flags' and the stored ones.
func (n *Notifier) Targets(ctx context.Context) ([]Target, error) {
	stored, err := n.store.Targets(ctx)
	if err != nil {
		return nil, err
	}
	return append(append([]Target{}, n.cfg.Static...), stored...), nil
}

// known is every target, as read at most Poll ago: every wait's beginning and end needs them,
// and a read of the store each time was a twentieth of a lone wait's way to its webhook. A
// change made here (AddTarget, SetKinds, DeleteTarget) is seen at once; one made on another
// instance sharing the database within Poll.
func (n *Notifier) known(ctx context.Context) ([]Target, error) {
	n.tmu.Lock()
	ts, at := n.targets, n.readAt
	n.tmu.Unlock()
	if !at.IsZero() && time.Since(at) < n.cfg.Poll {
		return ts, nil
	}
	ts, err := n.Targets(ctx)
	if err != nil {
		return nil, err
	}
	n.tmu.Lock()
	n.targets, n.readAt = ts, time.Now()
	n.tmu.Unlock()
	return ts, nil
}

// reread makes known read the targets again, after a change to them.
func (n *Notifier) reread() {
	n.tmu.Lock()
	n.readAt = time.Time{}
	n.tmu.Unlock()
}

// AddTarget checks and stores a target an admin configured, giving it an ID.
func (n *Notifier) AddTarget(ctx context.Context, t Target) (Target, error) {
	t.Static = false
	if err := t.Check(); err != nil {
		return t, err
	}
	b := make([]byte, 8)
	rand.Read(b)
	t.ID, t.Created = string(t.Kind)+"-"+hex.EncodeToString(b), n.cfg.Now().UTC()
	if t.Name == "" {
		t.Name = string(t.Kind) + " " + redactURL(t.URL)
	}
	defer n.reread()
	return t, n.store.PutTarget(ctx, t)
}

// SetKinds sets which kinds of wait a stored target announces (a browser's Web Push that
// should stay quiet while a session only waits for its next prompt: every kind but input);
// nil announces every kind.
func (n *Notifier) SetKinds(ctx context.Context, id string, kinds []string) (Target, error) {
	if strings.HasPrefix(id, "flag-") {
		return Target{}, errs.New(errs.Invalid, "a target from --notify changes with its flag's kinds= option")
	}
	stored, err := n.store.Targets(ctx)
	if err != nil {
		return Target{}, err
	}
	for _, t := range stored {
		if t.ID != id {
			continue
		}
		t.Filter.Kinds = kinds
		if err := t.Check(); err != nil {
			return t, err
		}
		defer n.reread()
		return t, n.store.PutTarget(ctx, t)
	}
	return Target{}, errs.Errorf(errs.NotFound, "no notification target %q", id)
}

// DeleteTarget removes a stored target.
func (n *Notifier) DeleteTarget(ctx context.Context, id string) error {
	if strings.HasPrefix(id, "flag-") {
		return errs.New(errs.Invalid, "a target from --notify is removed by restarting without the flag")
	}
	defer n.reread()
	return n.store.DeleteTarget(ctx, id)
}

// Deliveries is a target's recent deliveries, newest first.
func (n *Notifier) Deliveries(ctx context.Context, target string, limit int) ([]Delivery, error) {
	return n.store.Recent(ctx, target, limit)
}

// VAPID is the push key, made and stored on first use.
func (n *Notifier) VAPID(ctx context.Context) (*VAPID, error) {
	n.mu.Lock()
	v := n.vapid
	n.mu.Unlock()
	if v != nil {
		return v, nil
	}
	scalar, err := n.store.Secret(ctx, vapidSecret, newVAPIDScalar)
	if err != nil {
		return nil, err
	}
	if v, err = ParseVAPID(scalar); err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.vapid = v
	n.mu.Unlock()
	return v, nil
}

// Links is the capability links' checker over this notifier's store.
func (n *Notifier) Links(a Answerer) Links {
	return Links{Store: n.store, Answerer: a, Now: n.cfg.Now, Open: n.IsOpen}
}
