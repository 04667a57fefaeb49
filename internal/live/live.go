// Package live is plandash's one live layer: the registry of socket topics, each declaring which
// changes it shows and how it renders them, one sequence space for every page, and the catch-up a
// reconnecting page gets. It is the only publisher to the hub.
//
// Writers announce what changed (a session, an approval request, a shared plan…) once it is
// stored; announcing never blocks. Workers render each change once per topic that has
// subscribers, with the page's own components, and publish the bytes every subscriber shares. A
// change announced again before it was rendered is rendered once, so a burst costs one render,
// and changes are taken in the order they were first announced, so one busy session cannot
// starve the others. Each rendered element also carries the edits from its previous render
// (patch.go), which a page that holds that render is sent instead of the element.
package live

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/internal/jsontext"
)

// Change names something that changed in the store.
type Change struct {
	Kind string // what changed: "session", "approval", "shared", …
	ID   string // which one; "" for kinds that are one thing
	// Part names a part of it ("plan:main", "call:t1", "activity") for topics that render parts
	// on their own (Topic.Parts); "" is the thing as a whole.
	Part string
	// Data is what the announcer already holds of the change (the plan its commit wrote), for
	// Render to draw from instead of reading the store back. It is not part of what names the
	// change: Render is given the Data of the newest announcement of the change (nil when that
	// one had none), and a page catching up later, the store's.
	Data any
}

// Fragment is one element a page replaces, inserts into Parent when it does not have it yet, or
// removes (View nil).
type Fragment struct {
	ID     string
	Parent string
	View   templ.Component
	// A container whose parts are sent on their own (a session's group on the overview) comes
	// twice: whole (Whole), for a page that does not show it yet, and in parts (each with Of,
	// the container's ID), for a page that does. Each page gets one or the other.
	Of    string
	Whole bool
	// Shows lists the containers a page shows once it has applied this fragment (a snapshot of
	// the whole list).
	Shows []string
}

// Remove is a fragment that removes element id.
func Remove(id string) Fragment { return Fragment{ID: id} }

// Topic is one kind of live page. An unkeyed topic is subscribed to by its name ("all"); a keyed
// one by name:key ("session:<id>") and shows only the changes whose ID is its key.
type Topic struct {
	Name  string
	Keyed bool
	Kinds []string // the changes it shows
	// Parts says the topic renders parts of its changes on their own (a long session's page
	// redoes one plan card or one tool call row, not the page); a topic without it is told only of
	// whole changes.
	Parts bool
	// PartPrefixes, when set, keeps only the parts starting with one of them (the overview
	// redoes a plan card on its own, but shows nothing of a session's tool calls).
	PartPrefixes []string
	// Render returns what a page of the topic shows of change c now. An error is logged and
	// nothing is sent: a page keeps what it has rather than lose an element.
	Render func(ctx context.Context, key string, c Change) ([]Fragment, error)
	// Snapshot, when set, renders every live part of a page of the topic, containers whole, for
	// a page whose since this process cannot vouch for (one rendered by an earlier process, or
	// further behind than the history): it is brought up to date without a reload. Without it,
	// such a page reloads.
	Snapshot func(ctx context.Context, key string) ([]Fragment, error)
}

// Options tunes a Live.
type Options struct {
	Log     *slog.Logger
	Now     func() time.Time
	Workers int // renders at once; default 2
	// History is how many announced changes are kept for catching up; a page further behind
	// reloads. Default 4096.
	History int
	// MaxCatchUp is how many changed elements a reconnecting page is sent before it is told to
	// reload instead: past that, one page load is cheaper. Default 200.
	MaxCatchUp int
	// Follow is how long a whole change announced together with parts of the same thing waits
	// before it is rendered (a session's group around the plan card that changed): the parts are
	// what a person watches change, and are sent first without the whole's render sharing the
	// cores with their fan-out, while more changes of a busy session coalesce into one render
	// of the whole. Default 20ms.
	Follow time.Duration
}

type entry struct {
	seq uint64
	c   Change
}

// stamp is the newest announcement of a change waiting to be rendered: its seq, when (wall
// clock with its monotonic reading, for measuring fan-out lag), and its Change.Data.
type stamp struct {
	seq  uint64
	at   time.Time
	data any
}

// deferred is a whole change waiting to follow its parts, and when it is due.
type deferred struct {
	c   Change
	due time.Time
}

// Live is the registry and its render queue. Create one with New, register topics, then Run.
type Live struct {
	hub  *hub.Hub
	log  *slog.Logger
	opts Options

	unkeyed, keyed map[string]*Topic
	byKind         map[string][]*Topic

	mu    sync.Mutex
	seq   uint64
	first uint64  // the oldest seq history still holds
	hist  []entry // ring, oldest first once full
	head  int     // next slot of hist to overwrite once it is full
	dirty map[Change]stamp
	queue []Change
	// later holds whole changes that follow their parts (Options.Follow), oldest first; they
	// are rendered once due and the queue is empty. follow wakes a worker when the oldest is due.
	later  []deferred
	follow *time.Timer
	wake   chan struct{}
	seed   maphash.Seed // of the fragments' digests

	renders renders   // the newest markup of each element, for patches
	scratch sync.Pool // of *scratch
	patches sync.Pool // of *patchScratch
}

// New returns a Live publishing to h. Its sequence starts at the clock's microseconds, so a page
// rendered by an earlier process is always behind this one's history and reloads instead of
// trusting a sequence number from another space.
func New(h *hub.Hub, opts Options) *Live {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	if opts.History <= 0 {
		opts.History = 4096
	}
	if opts.MaxCatchUp <= 0 {
		opts.MaxCatchUp = 200
	}
	if opts.Follow <= 0 {
		opts.Follow = 20 * time.Millisecond
	}
	start := uint64(opts.Now().UnixMicro())
	return &Live{
		hub: h, log: opts.Log, opts: opts,
		unkeyed: map[string]*Topic{}, keyed: map[string]*Topic{}, byKind: map[string][]*Topic{},
		seq: start, first: start + 1, dirty: map[Change]stamp{}, wake: make(chan struct{}, 1), seed: maphash.MakeSeed(),
	}
}

// Register adds a topic. Call it before Run; adding a live page is registering its topic.
func (l *Live) Register(t Topic) {
	if t.Keyed {
		l.keyed[t.Name] = &t
	} else {
		l.unkeyed[t.Name] = &t
	}
	for _, k := range t.Kinds {
		l.byKind[k] = append(l.byKind[k], &t)
	}
}

// Forget drops the markup remembered for patches (up to 4 MB after a burst of changes to many
// elements): for a server gone quiet, whose memory is worth more than a patch. Each element's
// next change is then sent whole once.
func (l *Live) Forget() { l.renders.forget() }

// Seq is the newest sequence number. A page reads it before it reads the store, so whatever
// changes after is announced with a larger number and reaches it live or by catch-up.
func (l *Live) Seq() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// Valid reports whether topic names a registered topic.
func (l *Live) Valid(topic string) bool {
	_, _, ok := l.parse(topic)
	return ok
}

// Shows reports whether a registered topic shows changes of kind: a change of a kind no topic
// shows reaches no page.
func (l *Live) Shows(kind string) bool { return len(l.byKind[kind]) > 0 }

// Topics lists the subscribable topic forms, for error messages.
func (l *Live) Topics() []string {
	var out []string
	for n := range l.unkeyed {
		out = append(out, fmt.Sprintf("%q", n))
	}
	for n := range l.keyed {
		out = append(out, fmt.Sprintf("%q", n+":<id>"))
	}
	slices.Sort(out)
	return out
}

func (l *Live) parse(topic string) (*Topic, string, bool) {
	if t, ok := l.unkeyed[topic]; ok {
		return t, "", true
	}
	name, key, ok := strings.Cut(topic, ":")
	if t, found := l.keyed[name]; ok && found && key != "" {
		return t, key, true
	}
	return nil, "", false
}

func (t *Topic) shows(key string, c Change) bool {
	return slices.Contains(t.Kinds, c.Kind) && (!t.Keyed || c.ID == key) && t.takesPart(c.Part)
}

// takesPart reports whether the topic renders changes of part (every topic renders wholes).
func (t *Topic) takesPart(part string) bool {
	if part == "" {
		return true
	}
	if !t.Parts {
		return false
	}
	if len(t.PartPrefixes) == 0 {
		return true
	}
	return slices.ContainsFunc(t.PartPrefixes, func(p string) bool { return strings.HasPrefix(part, p) })
}

func (t *Topic) subscription(c Change) string {
	if t.Keyed {
		return t.Name + ":" + c.ID
	}
	return t.Name
}

// Announce records stored changes and queues them for rendering. A whole change announced with
// parts of the same thing is rendered after them (Options.Follow). It never blocks.
func (l *Live) Announce(cs ...Change) {
	at := time.Now() // not opts.Now: lag is measured on the monotonic clock
	parted := withParts(cs)
	queued := false
	l.mu.Lock()
	for _, c := range cs {
		data := c.Data
		c.Data = nil
		l.seq++
		l.remember(entry{l.seq, c})
		if _, ok := l.dirty[c]; !ok {
			// A change no page follows is not queued: a worker would find nobody to render
			// it for, and waking it on the other core was most of what announcing cost an
			// ingest with no page open. A page that subscribes after this catches up on it
			// from the history, as one that subscribes after a render does.
			if !l.followed(c) {
				continue
			}
			if parted[c] {
				l.later = append(l.later, deferred{c, at.Add(l.opts.Follow)})
				if len(l.later) == 1 {
					l.followIn(l.opts.Follow)
				}
			} else {
				l.queue = append(l.queue, c)
			}
		}
		l.dirty[c] = stamp{l.seq, at, data}
		queued = true
	}
	l.mu.Unlock()
	if queued {
		l.nudge()
	}
}

// followed reports whether a page is subscribed to a topic that renders c.
func (l *Live) followed(c Change) bool {
	for _, t := range l.byKind[c.Kind] {
		if t.takesPart(c.Part) && l.hub.Subscribers(t.subscription(c)) > 0 {
			return true
		}
	}
	return false
}

// withParts is the whole changes whose parts cs holds too (nil when cs is one change): a set,
// as a batch's commit may announce thousands.
func withParts(cs []Change) map[Change]bool {
	if len(cs) < 2 {
		return nil
	}
	var out map[Change]bool
	for _, c := range cs {
		if c.Part != "" {
			if out == nil {
				out = map[Change]bool{}
			}
			out[Change{Kind: c.Kind, ID: c.ID}] = true
		}
	}
	return out
}

// followIn wakes a worker after d, for the oldest deferred change; the caller holds mu.
func (l *Live) followIn(d time.Duration) {
	if l.follow == nil {
		l.follow = time.AfterFunc(d, l.nudge)
		return
	}
	l.follow.Reset(d)
}

// nudge wakes a worker, if one is idle.
func (l *Live) nudge() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *Live) remember(e entry) {
	if len(l.hist) < l.opts.History {
		l.hist = append(l.hist, e)
		return
	}
	l.hist[l.head] = e
	l.head = (l.head + 1) % len(l.hist)
	l.first = l.hist[l.head].seq
}

// take returns the next change to render and its newest announcement: the oldest deferred
// change once it is due (a busy queue must not keep it waiting for ever), else the queue's first.
func (l *Live) take() (Change, stamp, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var c Change
	switch {
	case len(l.later) > 0 && !time.Now().Before(l.later[0].due):
		c = l.later[0].c
		l.later[0] = deferred{}
		l.later = l.later[1:]
		if len(l.later) > 0 {
			l.followIn(time.Until(l.later[0].due))
		}
	case len(l.queue) > 0:
		c = l.queue[0]
		l.queue[0] = Change{}
		l.queue = l.queue[1:]
	default:
		return Change{}, stamp{}, false
	}
	st := l.dirty[c]
	delete(l.dirty, c)
	c.Data = st.data
	if len(l.queue) > 0 {
		l.nudge() // more work: wake another worker, if one is idle
	}
	return c, st, true
}

// Run renders and publishes announced changes until ctx ends.
func (l *Live) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range l.opts.Workers {
		wg.Go(func() { l.work(ctx) })
	}
	wg.Wait()
}

func (l *Live) work(ctx context.Context) {
	for {
		c, st, ok := l.take()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-l.wake:
				continue
			}
		}
		for _, t := range l.byKind[c.Kind] {
			if !t.takesPart(c.Part) {
				continue
			}
			sub := t.subscription(c)
			if l.hub.Subscribers(sub) == 0 {
				continue
			}
			if fs, ok := l.render(ctx, t, c.ID, c, st, sub); ok {
				l.hub.Publish(sub, fs...)
			}
		}
	}
}

// render renders c for topic t and encodes it, for publishing to hub topic sub ("" for one page's
// catch-up); false when rendering failed (logged).
func (l *Live) render(ctx context.Context, t *Topic, key string, c Change, st stamp, sub string) ([]hub.Fragment, bool) {
	seq := st.seq
	frags, err := t.Render(ctx, key, c)
	if err != nil {
		if ctx.Err() == nil {
			l.log.Error("live: render failed; pages keep what they show", "topic", t.Name, "kind", c.Kind, "id", c.ID, "err", err)
		}
		return nil, false
	}
	out := make([]hub.Fragment, 0, len(frags))
	quiet, parts := true, 0
	for _, f := range frags {
		if f.Whole {
			out = append(out, l.lazy(t, f, st))
			continue
		}
		hf, err := l.fragment(f, seq, sub)
		if err != nil {
			l.log.Error("live: render failed; pages keep what they show", "topic", t.Name, "element", f.ID, "err", err)
			return nil, false
		}
		hf.At = st.at
		out = append(out, hf)
		quiet, parts = quiet && hf.Quiet, parts+1
	}
	// A container sent whole is new to the pages it goes to, but if every part of it redone with
	// it came out as it was, so did the container (its other parts have changes of their own):
	// it is quiet too, and a change that altered nothing wakes no page.
	if quiet && parts > 0 {
		for i := range out {
			out[i].Quiet = true
		}
	}
	return out, true
}

// lazy is container f sent whole, rendered only once a page that does not show it yet is sent
// it (hub.Fragment.Load): its parts, rendered on their own, are what every page that shows it
// gets.
func (l *Live) lazy(t *Topic, f Fragment, st stamp) hub.Fragment {
	whole := newShared(func() loaded {
		hf, err := l.fragment(f, st.seq, "")
		if err != nil {
			l.log.Error("live: render failed; pages keep what they show", "topic", t.Name, "element", f.ID, "err", err)
			return loaded{}
		}
		hf.At = st.at
		return loaded{hf, true}
	})
	return hub.Fragment{Key: f.ID, Seq: st.seq, At: st.at, Of: f.Of, Whole: true, Shows: f.Shows,
		Load: func() (hub.Fragment, bool) { l := whole.get(); return l.f, l.ok }}
}

// loaded is a container's fragment rendered whole, and whether that worked.
type loaded struct {
	f  hub.Fragment
	ok bool
}

// fragment renders f into the frame pages receive, numbered seq, with the digest of what it
// shows: its parent and markup, which two renders of an unchanged element share. It is quiet
// (hub.Fragment.Quiet) when the element's previous render was published to the same hub topic,
// the one it is for ("" for a single page), and showed the same. The markup and
// the frame are written into reused scratch buffers and copied out at their exact sizes:
// buffers grown afresh for every element of every change, and the markup copied once more into
// a string for encoding/json, were most of what the fan-out allocated.
func (l *Live) fragment(f Fragment, seq uint64, topic string) (hub.Fragment, error) {
	s, _ := l.scratch.Get().(*scratch)
	if s == nil {
		s = new(scratch)
	}
	defer s.put(&l.scratch)
	s.html.Reset()
	if err := markupTo(&s.html, f); err != nil {
		return hub.Fragment{}, err
	}
	html := s.html.Bytes()
	s.frame = appendFrame(s.frame[:0], f, seq, html)
	b := bytes.Clone(s.frame)
	var h maphash.Hash
	h.SetSeed(l.seed)
	h.WriteString(f.Parent)
	h.WriteByte(0)
	h.Write(html)
	hf := hub.Fragment{Key: f.ID, Seq: seq, Data: b, Sum: h.Sum64() | 1, // never zero: zero is unknown
		Of: f.Of, Whole: f.Whole, Shows: f.Shows}
	if f.View != nil && f.ID != "" {
		prev, html, ok := l.renders.swap(f.ID, topic, hf.Sum, html)
		hf.Quiet = ok && prev.sum == hf.Sum && topic != "" && prev.topic == topic
		if ok && prev.sum != hf.Sum {
			id, parent, whole := f.ID, f.Parent, len(b)
			hf.Patch = newShared(func() []byte {
				s, _ := l.patches.Get().(*patchScratch)
				if s == nil {
					s = new(patchScratch)
				}
				defer s.put(&l.patches)
				return s.patch(id, parent, seq, prev.html, html, whole)
			}).get
			hf.Base = prev.sum
		}
	}
	return hf, nil
}

// scratch is the buffers one fragment is rendered and encoded in.
type scratch struct {
	html  bytes.Buffer
	frame []byte
}

// maxScratch is the largest scratch buffer kept for reuse: a snapshot of a whole page is rare
// and need not stay resident.
const maxScratch = 256 << 10

func (s *scratch) put(p *sync.Pool) {
	if s.html.Cap() <= maxScratch && cap(s.frame) <= maxScratch {
		p.Put(s)
	}
}

// frame is what the socket sends: replace element ID with HTML (remove it when HTML is empty),
// or insert it into Parent when the page does not have it yet. It is written by appendFrame, in
// this order, as encoding/json would write it.
type frame struct {
	T      string `json:"t"`
	ID     string `json:"id"`
	Parent string `json:"parent,omitempty"`
	Seq    uint64 `json:"seq"`
	HTML   string `json:"html"`
}

// markup is f's markup; empty for a removal.
func markup(f Fragment) ([]byte, error) {
	var html bytes.Buffer
	err := markupTo(&html, f)
	return html.Bytes(), err
}

// markupTo writes f's markup to html; nothing for a removal.
func markupTo(html *bytes.Buffer, f Fragment) error {
	if f.View == nil {
		return nil
	}
	if err := f.View.Render(context.Background(), html); err != nil {
		return err
	}
	if html.Len() == 0 {
		return fmt.Errorf("element %s rendered empty", f.ID)
	}
	return nil
}

// encode is the frame of f showing html.
func encode(f Fragment, seq uint64, html []byte) ([]byte, error) {
	return appendFrame(nil, f, seq, html), nil
}

// appendFrame appends the frame of f showing html to dst: the JSON of frame, not HTML-escaped
// (a frame is parsed by the page's script, never put into a document as it is, and "\u003c" for
// every "<" made a frame of markup about a third larger).
func appendFrame(dst []byte, f Fragment, seq uint64, html []byte) []byte {
	dst = append(dst, `{"t":"f","id":`...)
	dst = jsontext.AppendString(dst, f.ID, jsontext.Plain)
	if f.Parent != "" {
		dst = append(dst, `,"parent":`...)
		dst = jsontext.AppendString(dst, f.Parent, jsontext.Plain)
	}
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendUint(dst, seq, 10)
	dst = append(dst, `,"html":`...)
	dst = jsontext.AppendString(dst, html, jsontext.Plain)
	return append(dst, '}')
}

// Resync is the frame that tells a page to reload.
var Resync = []byte(`{"t":"resync"}`)

// Subscribe subscribes to topic and the extra topics every page also follows.
func (l *Live) Subscribe(topic string, also ...string) *hub.Subscription {
	return l.hub.Subscribe(append([]string{topic}, also...)...)
}

// CatchUp sends a page subscribed to topic what changed after since, rendered as it is now. A
// page whose since this process cannot vouch for (older than the history, or from another
// process) is told to reload; so is one that missed more than MaxCatchUp elements.
func (l *Live) CatchUp(ctx context.Context, topic string, since uint64, send func(hub.Fragment) error) error {
	t, key, ok := l.parse(topic)
	if !ok {
		return fmt.Errorf("no topic %q", topic)
	}
	l.mu.Lock()
	if since+1 < l.first || since > l.seq {
		seq := l.seq
		l.mu.Unlock()
		return l.snapshot(ctx, t, key, seq, send)
	}
	newest := map[Change]uint64{}
	var order []Change
	for _, e := range l.ordered() {
		if e.seq <= since || !t.shows(key, e.c) {
			continue
		}
		if _, seen := newest[e.c]; !seen {
			order = append(order, e.c)
		}
		newest[e.c] = e.seq
	}
	l.mu.Unlock()
	if len(order) > l.opts.MaxCatchUp {
		return send(hub.Fragment{Data: Resync})
	}
	for _, c := range order {
		// No time: a catch-up frame's lag is how long the page was away, not the fan-out's.
		frags, ok := l.render(ctx, t, key, c, stamp{seq: newest[c]}, "")
		if !ok {
			continue
		}
		for _, f := range frags {
			if err := send(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// snapshot sends the whole of what a page of t shows, numbered seq, or tells it to reload.
func (l *Live) snapshot(ctx context.Context, t *Topic, key string, seq uint64, send func(hub.Fragment) error) error {
	resync := hub.Fragment{Data: Resync}
	if t.Snapshot == nil {
		return send(resync)
	}
	frags, err := t.Snapshot(ctx, key)
	if err != nil {
		l.log.Error("live: snapshot failed; the page reloads", "topic", t.Name, "key", key, "err", err)
		return send(resync)
	}
	for _, f := range frags {
		hf, err := l.fragment(f, seq, "")
		if err != nil {
			l.log.Error("live: snapshot failed; the page reloads", "topic", t.Name, "element", f.ID, "err", err)
			return send(resync)
		}
		if err := send(hf); err != nil {
			return err
		}
	}
	return nil
}

// ordered is the history oldest first; the caller holds mu.
func (l *Live) ordered() []entry {
	if len(l.hist) < l.opts.History {
		return l.hist
	}
	return append(slices.Clone(l.hist[l.head:]), l.hist[:l.head]...)
}
