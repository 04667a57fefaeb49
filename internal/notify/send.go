package notify

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// Bounds on one send, whatever a target does: it answers within sendTimeout or fails, is not
// followed through redirects, and at most readLimit bytes of its answer are read.
const (
	sendTimeout = 10 * time.Second
	readLimit   = 4 << 10
	replyLimit  = 64 << 10 // a reply that names the message posted (Discord's echoes the message)
	claimBatch  = 100
	keep        = 7 * 24 * time.Hour // finished deliveries and expired links are kept this long
)

// NewClient is the HTTP client targets are sent with: no redirects (a webhook that redirects
// is misconfigured, and a loop must not cost more than one request), bounded time.
func NewClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = sendTimeout
	tr.MaxResponseHeaderBytes = 64 << 10
	return &http.Client{
		Transport:     tr,
		Timeout:       sendTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// sendLoop claims what is due and sends it, until ctx ends.
func (n *Notifier) sendLoop(ctx context.Context) {
	tick := time.NewTicker(n.cfg.Poll)
	defer tick.Stop()
	var pruned time.Time
	for ctx.Err() == nil {
		if now := n.cfg.Now(); now.Sub(pruned) >= time.Hour {
			// The outbox and the links would grow without end: a week of history is kept.
			pruned = now
			if _, err := n.store.Prune(ctx, now.Add(-keep)); err != nil && ctx.Err() == nil {
				n.cfg.Log.Warn("notify: pruning the outbox", "err", err)
			}
		}
		more, err := n.SendDue(ctx)
		if err != nil && ctx.Err() == nil {
			n.cfg.Log.Warn("notify: reading the outbox", "err", err)
		}
		if more {
			continue
		}
		select {
		case <-ctx.Done():
		case <-n.wake:
		case <-tick.C:
		}
	}
}

// SendDue claims one batch of due deliveries and starts their sends (see sendBatch), and reports
// whether a full batch was claimed (so there may be more).
func (n *Notifier) SendDue(ctx context.Context) (bool, error) {
	ds, err := n.store.Claim(ctx, n.cfg.Owner, n.cfg.Now(), n.cfg.Lease, claimBatch)
	if err != nil || len(ds) == 0 {
		return false, err
	}
	targets, err := n.known(ctx)
	if err == nil && !knowsAll(targets, ds) {
		// A target added on another instance since the targets were read: read them again
		// before its deliveries fail as "removed".
		n.reread()
		targets, err = n.known(ctx)
	}
	if err != nil {
		return false, err
	}
	n.sendBatch(ctx, ds, targets, false, nil)
	return len(ds) == claimBatch, nil
}

// knowsAll reports whether every delivery of ds is for one of targets.
func knowsAll(targets []Target, ds []Delivery) bool {
	for _, d := range ds {
		if !slices.ContainsFunc(targets, func(t Target) bool { return t.ID == d.Target }) {
			return false
		}
	}
	return true
}

// sendBatch sends deliveries claimed by this instance, each target's on its own goroutine,
// and returns without waiting for them: a target that hangs holds up only its own. With here,
// the last target's are sent on the calling goroutine, which returns once they are done. Each
// target's outcomes are recorded in one transaction once its sends are done. A target with
// maxPerTarget sends under way already gets its deliveries back in the outbox, due a second
// later, unsent. Outcomes are recorded once committed is closed (nil: ds are committed).
func (n *Notifier) sendBatch(ctx context.Context, ds []Delivery, targets []Target, here bool, committed <-chan struct{}) {
	record := func(out *outcomes) {
		if committed != nil {
			<-committed // an outcome's update must find its delivery's row
		}
		n.record(ctx, out)
	}
	byID := map[string]Target{}
	for _, t := range targets {
		byID[t.ID] = t
	}
	// Each target's deliveries, in the order of ds, with their slices sized up front: a
	// burst's batch is thousands of deliveries, and growing a slice per target copied them
	// over and over.
	count := map[string]int{}
	var order []string
	for _, d := range ds {
		if count[d.Target] == 0 {
			order = append(order, d.Target)
		}
		count[d.Target]++
	}
	groups := make(map[string][]Delivery, len(order))
	for _, d := range ds {
		g, ok := groups[d.Target]
		if !ok {
			g = make([]Delivery, 0, count[d.Target])
		}
		groups[d.Target] = append(g, d)
	}
	for i, id := range order {
		t, ok := byID[id]
		out := &outcomes{ds: make([]Delivery, 0, len(groups[id]))}
		if !n.take(id) {
			now := n.cfg.Now()
			for _, d := range groups[id] {
				d.Status, d.Due, d.Error = Pending, now.Add(time.Second), "waiting for the target's earlier sends to end"
				out.add(d)
			}
			record(out)
			continue
		}
		send := func() {
			n.sendTarget(ctx, t, ok, groups[id], out)
			n.give(id) // before the record, which waits to gather others' outcomes
			// One transaction records the target's outcomes: a commit per delivery would take
			// the database's one writer from ingest as often as notifications are sent.
			record(out)
		}
		if here && i == len(order)-1 {
			n.sends.Add(1)
			send()
			n.sends.Done()
			continue
		}
		n.sends.Go(send)
	}
}

// take counts a send to target under way, unless maxPerTarget are already.
func (n *Notifier) take(target string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.busy[target] >= maxPerTarget {
		return false
	}
	n.busy[target]++
	return true
}

func (n *Notifier) give(target string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.busy[target]--; n.busy[target] <= 0 {
		delete(n.busy, target)
	}
}

// recordGather is how long the goroutine that records outcomes gathers those of other sends
// before its commit. An outcome is not urgent (the lease keeps a sent delivery from being
// sent again meanwhile, and an end reads its announcement's outcome through recordBegun), and
// while waits begin and end a thousand times a second a commit per round of sends was as much
// CPU as the gate's own commits.
const recordGather = 20 * time.Millisecond

// record stores a target's outcomes. The first of its sends' goroutines to arrive gathers for
// recordGather, then commits what all of them left meanwhile in one transaction (a group
// commit), and again what arrived during that commit.
func (n *Notifier) record(ctx context.Context, out *outcomes) {
	r := &n.rec
	r.mu.Lock()
	r.ds = append(r.ds, out.ds...)
	if r.busy {
		r.mu.Unlock()
		return // the goroutine recording now records these next
	}
	r.busy = true
	r.mu.Unlock()
	time.Sleep(recordGather)
	r.mu.Lock()
	for len(r.ds) > 0 {
		ds := r.ds
		r.ds = nil
		r.mu.Unlock()
		n.finishAll(ctx, ds)
		r.mu.Lock()
	}
	r.busy = false
	r.mu.Unlock()
}

// recordBegun records at once the outcomes gathered so far (see record) when one of them is
// the announcement of one of waits: an end reads how its wait was announced (which message to
// clear) from the outbox.
func (n *Notifier) recordBegun(ctx context.Context, waits []string) {
	r := &n.rec
	r.mu.Lock()
	var ds []Delivery
	if slices.ContainsFunc(r.ds, func(d Delivery) bool { return d.Event == Began && slices.Contains(waits, d.Wait.ID) }) {
		ds, r.ds = r.ds, nil
	}
	r.mu.Unlock()
	if len(ds) > 0 {
		n.finishAll(ctx, ds)
	}
}

// finishAll stores outcomes in one transaction, even while ctx ends, and wakes the sender for
// those to be tried again.
func (n *Notifier) finishAll(ctx context.Context, ds []Delivery) {
	if _, err := n.store.FinishAll(context.WithoutCancel(ctx), n.cfg.Owner, ds); err != nil {
		n.cfg.Log.Warn("notify: recording deliveries", "n", len(ds), "err", err)
	}
	n.wakeFor(ds)
}

// recorder is the outcomes waiting to be recorded, and whether a goroutine is recording.
type recorder struct {
	mu   sync.Mutex
	ds   []Delivery
	busy bool
}

// outcomes collects a batch's outcomes, from its targets' goroutines, to record at once.
type outcomes struct {
	mu sync.Mutex
	ds []Delivery
}

func (o *outcomes) add(d Delivery) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ds = append(o.ds, d)
}

// sendTarget sends one target's claimed deliveries. For the chat targets (ntfy, Slack,
// Discord), waits that began are coalesced into one message ("5 plans wait"), and waits that
// ended update or clear the message that announced them (see ended); Web Push and webhooks
// get one request per delivery: a notification is cleared on its own, and a receiver
// deduplicates by the one idempotency key each request carries. On every target a wait's end
// is told only where its beginning was (not for a wait that began before the target was
// added, or whose announcement failed).
func (n *Notifier) sendTarget(ctx context.Context, t Target, ok bool, ds []Delivery, out *outcomes) {
	if !ok {
		for _, d := range ds {
			n.finish(out, d, Failed, "the target was removed")
		}
		return
	}
	nb := 0
	for _, d := range ds {
		if d.Event == Began {
			nb++
		}
	}
	began, ended := make([]Delivery, 0, nb), make([]Delivery, 0, len(ds)-nb)
	for _, d := range ds {
		switch {
		case d.Event == Began && !n.stillOpen(d.Wait.ID):
			n.finish(out, d, Skipped, "the wait ended before it was announced")
		case !t.coalesces() && d.Event == Began:
			n.deliver(ctx, t, []Delivery{d}, out)
		case d.Event == Began:
			began = append(began, d)
		default:
			ended = append(ended, d)
		}
	}
	if len(began) > 0 {
		n.deliverAll(ctx, t, began, out)
	}
	if len(ended) > 0 {
		n.ended(ctx, t, ended, out)
	}
}

// ended updates or clears, on a chat target, the messages that announced waits that ended:
// once every wait a message announced has ended (a coalesced "5 plans wait" stays until the
// last is answered), one request per message.
func (n *Notifier) ended(ctx context.Context, t Target, ds []Delivery, out *outcomes) {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.Wait.ID
	}
	// One read for the whole batch: a burst's ends are hundreds, and a read per end was most
	// of the cost of telling them.
	n.recordBegun(ctx, ids)
	as, err := n.store.Remotes(ctx, t.ID, ids)
	if err != nil {
		for _, d := range ds {
			n.retry(out, d, err)
		}
		return
	}
	byRemote := map[string][]Delivery{}
	var order []string
	for _, d := range ds {
		a, ok := as[d.Wait.ID]
		switch {
		case !ok:
			n.finish(out, d, Skipped, "no message announced it here, so there is nothing to clear")
			continue
		case a.Pending: // its announcement is on its way; clear it after
			n.retry(out, d, errs.Errorf(errs.Conflict, "the announcement of wait %q on %q is still being sent", d.Wait.ID, t.ID))
			continue
		case a.Open > 0:
			n.finish(out, d, Skipped, "its message also announces a wait still open; the last to end clears it")
			continue
		}
		d.Remote, d.announced = a.Remote, a.Waits
		if _, ok := byRemote[a.Remote]; !ok {
			order = append(order, a.Remote)
		}
		byRemote[a.Remote] = append(byRemote[a.Remote], d)
	}
	if t.coalesces() && t.ownMessage() {
		// A webhook hears the ends that came together in one request, each with its own key.
		var all []Delivery
		for _, r := range order {
			all = append(all, byRemote[r]...)
		}
		n.deliverAll(ctx, t, all, out)
		return
	}
	for _, r := range order {
		n.deliver(ctx, t, byRemote[r], out)
	}
}

// deliverAll sends ds, which reach t together: in one message on a chat target (which lists
// the first few), in requests of at most maxBatch waits on a webhook.
func (n *Notifier) deliverAll(ctx context.Context, t Target, ds []Delivery, out *outcomes) {
	size := len(ds)
	if t.Kind == Webhook {
		size = maxBatch
	}
	for c := range slices.Chunk(ds, size) {
		n.deliver(ctx, t, c, out)
	}
}

// deliver sends one message for ds and records the outcome on each.
func (n *Notifier) deliver(ctx context.Context, t Target, ds []Delivery, out *outcomes) {
	remote, err := n.post(ctx, t, ds)
	if err != nil && ctx.Err() != nil {
		return // stopping: the lease runs out and a sender takes it up again, same key
	}
	var perm *permanent
	for _, d := range ds {
		switch {
		case err == nil:
			if d.Event == Began {
				d.Remote = remote
				if t.ownMessage() {
					d.Remote = d.Key // its own message: what its end is told against
				}
			}
			n.finish(out, d, Sent, "")
		case errors.As(err, &perm):
			n.finish(out, d, Failed, err.Error())
		default:
			n.retry(out, d, err)
		}
	}
	if err != nil {
		n.cfg.Log.Info("notify: a target did not take a notification", "target", t.ID, "kind", t.Kind, "err", err)
	}
	if errors.As(err, &perm) && perm.gone && t.Kind == WebPush && !t.Static {
		// The browser unsubscribed: the push service says so once and for all.
		n.store.DeleteTarget(ctx, t.ID)
		n.reread()
	}
}

// retry notes a failure a later try may mend: tried again after a backoff, or failed for
// good once it has been failing for the give-up time.
func (n *Notifier) retry(out *outcomes, d Delivery, err error) {
	now := n.cfg.Now()
	if now.Sub(d.Due) >= n.cfg.GiveUp || now.Sub(d.Created) >= n.cfg.GiveUp+maxDelay {
		n.finish(out, d, Failed, "gave up after "+n.cfg.GiveUp.String()+": "+err.Error())
		return
	}
	wait := backoff(d.Attempts)
	if errs.KindOf(err) == errs.Conflict {
		// The announcement this end waits for is being sent this moment: try again soon.
		wait = min(wait, 50*time.Millisecond<<min(max(d.Attempts-1, 0), 5))
	}
	d.Status, d.Error, d.Due = Pending, err.Error(), now.Add(wait)
	out.add(d)
}

// wakeFor makes the sender read the outbox when the first of ds to try again falls due, when
// that comes before its next poll.
func (n *Notifier) wakeFor(ds []Delivery) {
	now, soonest := n.cfg.Now(), n.cfg.Poll
	for _, d := range ds {
		if d.Status == Pending {
			soonest = min(soonest, d.Due.Sub(now))
		}
	}
	if soonest < n.cfg.Poll {
		time.AfterFunc(max(soonest, 0), func() {
			select {
			case n.wake <- struct{}{}:
			default:
			}
		})
	}
}

// backoff is the wait before the next try: 1s, 2s, 4s … up to five minutes.
func backoff(attempts int) time.Duration {
	d := time.Second << min(max(attempts-1, 0), 9)
	return min(d, 5*time.Minute)
}

func (n *Notifier) finish(out *outcomes, d Delivery, st Status, msg string) {
	d.Status, d.Error, d.Done = st, msg, n.cfg.Now()
	out.add(d)
}

// permanent is a failure a retry cannot mend (4xx but 408 and 429); gone: the push
// subscription no longer exists.
type permanent struct {
	msg  string
	gone bool
}

func (e *permanent) Error() string { return e.msg }

// post builds the message for ds and sends it to t. remote is what the target calls the
// message it posted (see Delivery.Remote), when it was a beginning.
func (n *Notifier) post(ctx context.Context, t Target, ds []Delivery) (remote string, err error) {
	m, err := n.message(ctx, t, ds)
	if err != nil {
		return "", err
	}
	var out outgoing
	if t.Kind == WebPush {
		out, err = n.pushRequest(ctx, t, m)
	} else {
		out, err = render(t, m, n.cfg.Now())
	}
	if err != nil {
		return "", &permanent{msg: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, n.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, cmp.Or(out.Method, http.MethodPost), out.URL, bytes.NewReader(out.Body))
	if err != nil {
		return "", &permanent{msg: err.Error()}
	}
	req.Header = out.Header
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("User-Agent", "plandash")
	resp, err := n.cfg.Client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	limit := int64(readLimit)
	if out.Reply != nil {
		limit = replyLimit
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, limit))
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		remote = m.Remote
		if out.Reply != nil {
			id, err := out.Reply(head)
			if err != nil {
				// Sent all the same: only its later update is lost.
				n.cfg.Log.Warn("notify: the target's reply names no message", "target", t.ID, "kind", t.Kind, "err", err)
				return "", nil
			}
			remote = id
		}
		return remote, nil
	case c >= 300 && c < 400:
		return "", &permanent{msg: fmt.Sprintf("the target answered %s, a redirect to %q: give its final URL", resp.Status, clip(resp.Header.Get("Location"), 200))}
	case c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c >= 500:
		return "", fmt.Errorf("the target answered %s: %s", resp.Status, clip(string(head), 200))
	default:
		return "", &permanent{msg: fmt.Sprintf("the target answered %s: %s", resp.Status, clip(string(head), 200)),
			gone: c == http.StatusNotFound || c == http.StatusGone}
	}
}

// channel is how a target's kind is named in a decision's record ("approved from ntfy").
func channel(k Kind) string {
	switch k {
	case Ntfy:
		return "ntfy"
	case Slack:
		return "Slack"
	case Discord:
		return "Discord"
	case WebPush:
		return "Web Push"
	}
	return "a webhook"
}

// message is what ds say, with answer links when it is one wait that fits.
func (n *Notifier) message(ctx context.Context, t Target, ds []Delivery) (message, error) {
	m := message{Event: ds[0].Event, Remote: ds[0].Remote, Announced: ds[0].announced}
	if m.Event == Began {
		// plandash names a chat message itself (ntfy's sequence id); Discord names its own.
		m.Remote = "plandash-" + HashToken(ds[0].Key)[:32]
	}
	base := n.base()
	for _, d := range ds {
		m.Waits = append(m.Waits, d.Wait)
		m.Keys = append(m.Keys, d.Key)
	}
	if len(m.Waits) == 1 {
		m.Open = base + m.Waits[0].URL
	} else {
		m.Open = base + "/approvals"
	}
	if m.Event != Began {
		return m, nil
	}
	if len(ds) == 1 {
		var err error
		m.Buttons, err = n.buttons(ctx, t, ds[0])
		return m, err
	}
	if t.ownMessage() { // a webhook's batch: each wait's links beside it
		for _, d := range ds {
			bs, err := n.buttons(ctx, t, d)
			if err != nil {
				return m, err
			}
			if len(bs) > 0 {
				if m.Links == nil {
					m.Links = map[string][]button{}
				}
				m.Links[d.Wait.ID] = bs
			}
		}
	}
	return m, nil
}

// buttons is the answer links of d's wait: those made and stored with the delivery, or, for
// one stored before (sent again, or after a delay), new ones, when the wait can take them.
func (n *Notifier) buttons(ctx context.Context, t Target, d Delivery) ([]button, error) {
	if d.buttons != nil {
		return d.buttons, nil
	}
	w := d.Wait
	if !w.OneTap() {
		return nil, nil
	}
	var out []button
	for _, a := range w.Actions {
		if a.ID == "text" {
			continue // free text is typed on the page, not tapped
		}
		tok, err := newLink(ctx, n.store, w, a, channel(t.Kind), n.cfg.Now())
		if err != nil {
			return nil, err
		}
		out = append(out, button{Action: a.ID, Label: a.Label, URL: n.base() + LinkPath + tok})
	}
	return out, nil
}
