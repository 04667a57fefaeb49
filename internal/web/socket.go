package web

import (
	"bufio"
	"context"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/internal/changes"
	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/internal/live"
)

// socket serves GET /ws?topic=…&since=<seq>[&shows=<id>,…]: the page's live feed. shows names
// the containers the page shows (pageElements).
func (s *Server) socket(w http.ResponseWriter, r *http.Request) {
	topic := r.URL.Query().Get("topic")
	if !s.live.Valid(topic) {
		http.Error(w, "topic must be one of "+strings.Join(s.live.Topics(), ", "), http.StatusBadRequest)
		return
	}
	catchUp := r.URL.Query().Has("since")
	since, err := strconv.ParseUint(r.URL.Query().Get("since"), 10, 64)
	if err != nil && catchUp {
		http.Error(w, "since must be a change number", http.StatusBadRequest)
		return
	}
	// Subscribed before the upgrade is answered: whatever is published once the page holds an
	// open socket reaches it, even a change made the instant the connection opened.
	sub := s.live.Subscribe(topic, changes.TopicGate) // every page shows the pending count
	defer sub.Close()
	c, err := websocket.Accept(wideWriter{w}, r, &websocket.AcceptOptions{OriginPatterns: s.cfg.OriginPatterns, Subprotocols: []string{socketProtocol}})
	if err != nil {
		return // Accept has answered (403 for a foreign origin)
	}
	defer c.CloseNow()
	s.metrics.Sockets.Add(1)
	defer s.metrics.Sockets.Add(-1)
	ctx := c.CloseRead(closeOnRevoke(r.Context(), c)) // the page sends nothing; this notices when it goes away
	defer context.AfterFunc(ctx, sub.Wake)()
	write := newFrameWriter(c, writeTimeout)
	defer write.stop()
	page := newPageElements(showsParam(r.URL.Query().Get("shows"))...)

	// Subscribed first, then caught up: nothing published in between is missed, and pages drop
	// any fragment older than what they already have.
	if catchUp {
		frames := s.metrics.SocketFrames.With("catchup")
		if err := s.live.CatchUp(ctx, topic, since, func(f hub.Fragment) error {
			b := page.frame(f)
			if b == nil {
				return nil
			}
			frames.Inc()
			return write.frame(b)
		}); err != nil {
			return
		}
	}
	liveFrames := s.metrics.SocketFrames.With("live")
	var buf []hub.Fragment
	for {
		<-sub.Ready()
		if ctx.Err() != nil {
			c.Close(websocket.StatusNormalClosure, "")
			return
		}
		if sub.Overflowed() {
			// Too far behind to catch up fragment by fragment: the page reloads.
			_ = write.frame(live.Resync)
			c.Close(websocket.StatusNormalClosure, "resync")
			return
		}
		if cap(buf) > keepDrained && len(buf) < cap(buf)/4 {
			buf = nil // a burst's backlog, past: not kept for every open socket
		}
		buf = sub.Drain(buf[:0])
		for _, f := range buf {
			b := page.frame(f)
			if b == nil {
				continue
			}
			if err := write.frame(b); err != nil {
				return
			}
			liveFrames.Inc()
			if !f.At.IsZero() {
				s.metrics.FanoutLag.ObserveDuration(time.Since(f.At))
			}
		}
		clear(buf) // the frames sent are not kept alive by the buffer until it is overwritten
	}
}

// keepDrained is the drain buffer a socket always keeps once it has grown that far.
const keepDrained = 64

// showsParam is the containers a page says it shows (?shows=id,id,…: see pageElements).
func showsParam(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// closeOnRevoke is the context a socket reads under: ctx, except that when ctx ends because the
// request's token was revoked or expired (see Auth.watch), the socket is closed with a close
// frame that says so, rather than dropped (CloseRead drops the connection when its context
// ends), so the page knows not to carry on with the same token.
func closeOnRevoke(ctx context.Context, c *websocket.Conn) context.Context {
	read, cancel := context.WithCancel(context.WithoutCancel(ctx))
	context.AfterFunc(ctx, func() {
		if revokedCause(ctx) != nil {
			c.Close(websocket.StatusPolicyViolation, "the token was revoked or expired")
		}
		cancel()
	})
	return read
}

// pageElements mirrors what a socket's page shows, element by element, as its script keeps it
// (web/static/js/swap.js): the newest change applied to each element, by seq. A fragment the page
// would drop (no newer than what the element shows) or that shows just what the element shows
// already (the same digest, a newer seq) is not sent: a session's group redone for a tool call
// that changed nothing on it costs no write to every open overview. The element is then taken to
// show the newer seq, so a late fragment between the two is dropped, as the page would have
// dropped it after the one not sent. Elements the page showed before the socket sent anything
// are unknown and always sent.
//
// A container sent both whole and in parts (live.Fragment's Whole and Of: a session's group on
// the overview) goes in parts to a page that shows it (the page says which when it connects, and
// a snapshot says which it brings) and whole to one that does not. A page is never sent an
// element on its own and inside its container: the digest of a container says nothing of its
// children, so sending one whole forgets what was remembered of its parts.
//
// What the page shows of a container sent whole (or removed) is remembered as of any element,
// and its seq is the floor of its parts: they are at least as new as the container the page
// holds. (A map of floors of its own, beside the elements, was a quarter of what the sockets of
// a thousand sessions' overviews held.)
type pageElements struct {
	shown      map[string]shownElement
	containers map[string]bool // the containers the page shows
}

type shownElement struct {
	seq, sum uint64
	of       string // the container the element is a part of, if any
}

// maxPageElements bounds a socket's memory of its page. Past it, further elements are not
// remembered and are always sent; forgetting remembered ones could send a late fragment the
// page would have dropped. It bounds the containers a page can say it shows, too.
const maxPageElements = 2048

func newPageElements(containers ...string) *pageElements {
	p := &pageElements{shown: map[string]shownElement{}, containers: map[string]bool{}}
	for _, c := range containers[:min(len(containers), maxPageElements)] {
		p.containers[c] = true
	}
	return p
}

// frame returns what to write for f: nothing when the page already shows it or is not to be sent
// it, its patch when the page holds just the markup the patch starts from, else f whole. It notes
// what the page will show.
func (p *pageElements) frame(f hub.Fragment) []byte {
	switch {
	case f.Whole && p.containers[f.Key]:
		return nil // the page gets its parts
	case f.Whole:
		if f.Load != nil {
			var ok bool
			if f, ok = f.Load(); !ok {
				return nil
			}
		}
		// The page replaces the container and what it held: its parts are as new as it is
		// (swap.js drops older ones; the container's seq, remembered below, is their floor).
		// Nothing is remembered of them: parts are remembered only while the page shows their
		// container, and forgotten when it stops (removal, below).
	case f.Of != "" && !p.containers[f.Of]:
		return nil // the page gets the container whole
	case f.Of != "" && f.Seq <= p.shown[f.Of].seq:
		// Older than the container the page holds (sent whole, or removed before a snapshot
		// brought it back): it would drop it.
		return nil
	case p.containers[f.Key]:
		// Removed (a container's only other change), and its parts with it: a page that is sent
		// it whole later holds none of what was remembered of them. Forgotten here, once, rather
		// than looked for among every remembered element for each container sent whole (a
		// thousand sessions' overview sends one for most changes).
		delete(p.containers, f.Key)
		for k, e := range p.shown {
			if e.of == f.Key {
				delete(p.shown, k)
			}
		}
	}
	for _, c := range f.Shows {
		if len(p.containers) < maxPageElements {
			p.containers[c] = true
		}
	}
	if f.Key == "" || f.Seq == 0 {
		return f.Data // not an element's change (a resync), or not numbered
	}
	e, ok := p.shown[f.Key]
	switch {
	case !ok:
		if len(p.shown) < maxPageElements {
			p.shown[f.Key] = shownElement{f.Seq, f.Sum, f.Of}
		}
		return f.Data
	case f.Seq <= e.seq:
		return nil
	case f.Sum != 0 && f.Sum == e.sum:
		p.shown[f.Key] = shownElement{f.Seq, e.sum, f.Of}
		return nil
	}
	p.shown[f.Key] = shownElement{f.Seq, f.Sum, f.Of}
	if f.Patch != nil && e.sum == f.Base {
		if p := f.Patch(); p != nil {
			return p
		}
	}
	return f.Data
}

// writeTimeout is how long one frame may take to leave before the socket is given up: a page
// that stopped reading must not hold its writer goroutine forever.
const writeTimeout = 10 * time.Second

// frameWriter writes a socket's frames and closes the connection when one write has gone on for
// writeTimeout: a write only notes when it began, and one watch timer per socket, re-armed when
// it fires, checks, so a frame costs two atomic stores rather than a timer of its own. Writing
// under context.Background() loses nothing: CloseRead closes the connection when the page goes
// away or the server shuts down, which fails a write in flight.
type frameWriter struct {
	c       *websocket.Conn
	timeout time.Duration
	since   atomic.Int64 // when the write in flight began, in ns since start; 0 when none
	start   time.Time    // the monotonic origin of since
	watch   *time.Timer
	stopped atomic.Bool
}

func newFrameWriter(c *websocket.Conn, timeout time.Duration) *frameWriter {
	w := &frameWriter{c: c, timeout: timeout, start: time.Now()}
	// Armed only once w.watch is set: check re-arms it through that field.
	w.watch = time.AfterFunc(math.MaxInt64, w.check)
	w.watch.Reset(timeout)
	return w
}

// check runs on the watch timer: it ends a stalled write, or looks again later.
func (w *frameWriter) check() {
	if w.stopped.Load() {
		return
	}
	if began := w.since.Load(); began != 0 && time.Since(w.start)-time.Duration(began) >= w.timeout {
		w.c.CloseNow()
		return
	}
	w.watch.Reset(w.timeout)
}

// frame writes b as one text message.
func (w *frameWriter) frame(b []byte) error {
	w.since.Store(max(int64(time.Since(w.start)), 1))
	err := w.c.Write(context.Background(), websocket.MessageText, b)
	w.since.Store(0)
	return err
}

// stop ends the watch for good.
func (w *frameWriter) stop() {
	w.stopped.Store(true)
	w.watch.Stop()
}

// socketWriteBuffer is the size of a socket's write buffer. The connection's own (net/http's
// 4 KiB) is smaller than a typical fragment (an overview group is about 5 KB), so every frame
// left in two write syscalls, and on loopback each one costs as much as the bytes it carries. A
// frame up to this size now leaves in one; the price is 12 KiB more per open socket.
const socketWriteBuffer = 16 << 10

// wideWriter hands the websocket library a hijacked connection with a socketWriteBuffer-sized
// write buffer; everything else passes through.
type wideWriter struct{ http.ResponseWriter }

// Hijack takes over the connection and swaps in the wider write buffer. The buffer net/http
// returns is fresh and empty (it flushed the response so far to the connection first), so
// nothing is lost in the swap.
func (w wideWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if brw.Writer.Buffered() == 0 {
		brw.Writer = bufio.NewWriterSize(conn, socketWriteBuffer)
	}
	return conn, brw, nil
}

// Unwrap lets http.ResponseController reach the real writer.
func (w wideWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
