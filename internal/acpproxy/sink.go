package acpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/client"
)

// Sink posts what a Tap queued to a plandash server's ingest API, as recorded-transcript
// envelopes (so the server knows each frame's direction), all under one stream id so the server
// pairs requests and responses across posts. It runs on its own goroutine: a dashboard that is
// down, slow or restarting only makes the queue coalesce, never the proxy wait.
type Sink struct {
	// API is the dashboard. Build it with a token func (client.Target.Client does): a server
	// started later may create the token. The sink retries in its own loop, coalescing the queue
	// meanwhile, so it calls API with the client's retries turned off.
	API    *client.Client
	Stream string // the server's name for this connection
	Agent  string // agent name until the agent's initialize response names it
	Log    *slog.Logger

	MinBackoff, MaxBackoff time.Duration // retry delays; default 100 ms doubling to 5 s
	BatchFrames            int           // frames per post; default 1000
	BatchBytes             int           // bytes per post, about; default 2 MiB
	// Interval is the least time between posts while frames keep coming (default 200 ms): a
	// burst becomes a few large posts instead of a stream of small ones, which keeps the tap's
	// CPU away from the forwarding path and the server's transactions few. A frame after a quiet
	// spell goes at once, and so does a full batch: the interval gathers a trickle, it does not
	// throttle a backlog. Each post costs a local dashboard milliseconds of CPU whatever its size
	// (2.7 ms under a mix at 200 frames a second), and a frame that crosses the proxy meanwhile
	// may wait for a core: at 50 ms between posts, a mix at 2,000 frames a second had a p99 of
	// 0.9–1.2 ms through the proxy, at 200 ms 0.4–0.7 ms (cat | cat | cat: 0.2 ms). The
	// dashboard shows a steady stream at most that much later.
	Interval time.Duration

	api *client.Client // API without retries

	// The poster's view of the connection, for what the frames themselves do not say.
	session string           // the last session id seen: violations are attached to it
	early   map[uint64]frame // violations seen before any session, by frame seq
	down    bool             // the last post failed (for logging changes only)
	// seen are the sessions of this connection the dashboard took frames of (batch: of the
	// batch being posted): when the proxy ends, the dashboard is told they ended, so they look
	// gone at once rather than after the idle time.
	seen, batch map[string]bool
}

// Bounds of the goodbye: how many sessions one connection's is told of, and how long the proxy
// may spend telling a dashboard that is up (one that is down is not waited for at all).
const (
	maxSeen   = 256
	closeWait = 2 * time.Second
)

// maxEarly bounds the violations kept while no session is known (an agent printing a banner).
const maxEarly = 16

// Run posts until the tap is closed and its queue is empty, or until ctx ends.
func (s *Sink) Run(ctx context.Context, t *Tap) error {
	if s.API == nil {
		return errors.New("acp sink: no dashboard to post to")
	}
	s.defaults()
	t.q.attach()
	defer t.q.detach()
	backoff := s.MinBackoff
	var last time.Time
	ended := t.q.ended
	for {
		if wait := s.Interval - time.Since(last); wait > 0 && !t.q.isClosed() && !t.q.holds(s.BatchFrames, s.BatchBytes) {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			case <-t.q.ended: // the last frames go at once: the proxy is waiting to exit
			}
		}
		batch := t.q.take(s.BatchFrames, s.BatchBytes)
		if batch == nil {
			if t.q.isClosed() && t.q.empty() {
				s.closeSessions(ctx)
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.q.notify:
			}
			continue
		}
		last = time.Now()
		body, earlyUsed := s.encode(batch)
		err := s.post(ctx, body)
		s.remember(err == nil)
		if err == nil || isPermanent(err) {
			if err != nil {
				s.Log.Warn("plandash: the dashboard refused tapped frames; they are dropped", "frames", len(batch), "err", err)
			} else if s.down {
				s.Log.Info("plandash: dashboard reachable again; catching up")
			}
			for _, seq := range earlyUsed {
				delete(s.early, seq)
			}
			s.down = false
			t.q.done()
			backoff = s.MinBackoff
			continue
		}
		t.q.requeue(batch)
		if ctx.Err() != nil { // stopped mid-post: the dashboard was not unreachable
			return ctx.Err()
		}
		if !s.down {
			s.Log.Warn("plandash: dashboard unreachable; keeping the latest plans and retrying", "server", s.API.BaseURL(), "err", err)
			s.down = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		case <-ended:
			// The proxy is waiting to exit: try again at once rather than after a backoff of
			// up to MaxBackoff, once; after that the backoff holds (the caller bounds it).
			ended = nil
		}
		backoff = min(backoff*2, s.MaxBackoff)
	}
}

func (s *Sink) defaults() {
	s.api = s.API.With(client.WithRetry(client.Retry{}))
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	if s.MinBackoff <= 0 {
		s.MinBackoff = 100 * time.Millisecond
	}
	if s.MaxBackoff <= 0 {
		s.MaxBackoff = 5 * time.Second
	}
	if s.BatchFrames <= 0 {
		s.BatchFrames = 1000
	}
	if s.Interval == 0 {
		s.Interval = 200 * time.Millisecond
	}
	if s.BatchBytes <= 0 {
		s.BatchBytes = 2 << 20
	}
	if s.early == nil {
		s.early = map[uint64]frame{}
	}
}

// encode turns a batch into an NDJSON body of envelopes. earlyUsed lists the held violations it
// included, to forget once the post succeeds.
func (s *Sink) encode(batch []frame) (body []byte, earlyUsed []uint64) {
	// The frames of one forwarded chunk share its time, and a burst's chunks come in quick
	// succession: formatting a timestamp once per distinct time, not per frame, saves a
	// noticeable part of the sink's CPU.
	var ts []byte
	tsAt := int64(-1)
	stamp := func(at int64) []byte {
		if at != tsAt || ts == nil {
			ts, tsAt = time.Unix(0, at).UTC().AppendFormat(ts[:0], time.RFC3339Nano), at
		}
		return ts
	}
	// Sized for the whole batch up front: grown by doubling, the body was copied about twice
	// over. 80 bytes is an envelope around a line.
	n := 0
	for _, f := range batch {
		n += len(f.line) + 80
	}
	body = make([]byte, 0, n)
	for i, f := range batch {
		if i > 0 {
			// Encoding a batch of long frames takes milliseconds of CPU, and Go lets a busy
			// goroutine run for up to 10 ms before it preempts it: on two cores, with a GC
			// worker on the other, a forwarding goroutine that wakes meanwhile would wait for
			// the whole batch. Yielding between frames lets it run at once.
			runtime.Gosched()
		}
		b := acp.TrimSpace(f.line)
		if f.valid {
			s.observeFrame(f, b)
			if s.session != "" && len(s.early) > 0 && earlyUsed == nil {
				var used []uint64
				body, used = s.flushEarly(body)
				earlyUsed = append(earlyUsed, used...)
			}
		}
		var msg []byte
		switch {
		case f.valid && f.cursor:
			continue // see cursorMethod
		case f.valid:
			msg = b
		case s.session != "":
			msg = violationMsg(f.dir(), f.line, s.session)
		default:
			if len(s.early) < maxEarly {
				s.early[f.seq] = f
			}
			continue
		}
		body = appendEnvelopeTS(body, f.dir(), stamp(f.at), msg)
		if f.skipped > 0 {
			body = appendEnvelopeTS(body, f.dir(), stamp(f.at), coalescedNote(f.key, f.skipped))
		}
	}
	return body, earlyUsed
}

// coalescedNote tells the dashboard that n states of a plan were skipped on the way because it
// was behind, so the gap in the plan's history is explained in the session's activity. It is a
// session/update variant of plandash's own, which the server keeps as activity like any
// variant it does not know.
func coalescedNote(key string, n uint32) []byte {
	session, plan, _ := strings.Cut(key, "\x00")
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": acp.MethodSessionUpdate, "params": map[string]any{
		"sessionId": session,
		"update":    map[string]any{"sessionUpdate": CoalescedUpdate, "planId": plan, "skipped": n},
	}})
	return b
}

// CoalescedUpdate is the sessionUpdate kind of the proxy's note that plan states were skipped.
const CoalescedUpdate = "_plandash_coalesced"

// cursorMethod reports whether method, a frame's method member as frameMethod reads it, names a
// request or notification of Cursor's own (cursor/…). They are not posted: the server refuses
// methods that are not ACP's, and what they carry reaches the dashboard as the checklist and the
// gate instead. The tap reads it from the method it has already found, so posting a frame no
// longer searches the whole of it.
func cursorMethod(method []byte) bool {
	if bytes.HasPrefix(method, []byte(`"cursor/`)) {
		return true
	}
	if bytes.IndexByte(method, '\\') < 0 {
		return false
	}
	m, ok := acp.Unquote(method)
	return ok && strings.HasPrefix(m, "cursor/")
}

// flushEarly writes the held violations, now that there is a session to show them in.
func (s *Sink) flushEarly(body []byte) ([]byte, []uint64) {
	seqs := slices.Sorted(maps.Keys(s.early))
	for _, seq := range seqs {
		f := s.early[seq]
		body = appendEnvelope(body, f.dir(), f.time(), violationMsg(f.dir(), f.line, s.session))
	}
	return body, seqs
}

// observeFrame is observe for a frame of the queue: a plan frame's key already names its
// session, so its plan (often kilobytes of entries) is not walked again.
func (s *Sink) observeFrame(f frame, b []byte) {
	if sid, _, ok := strings.Cut(f.key, "\x00"); ok && sid != "" {
		s.noteSession(sid)
		return
	}
	s.observe(b)
}

// noteSession makes id the session a violation is attached to, and one the dashboard is told
// ended when the proxy does.
func (s *Sink) noteSession(id string) {
	s.session = id
	if s.batch == nil {
		s.batch = map[string]bool{}
	}
	s.batch[id] = true
}

// observe notes the session a frame belongs to and the agent's name, when it says them.
func (s *Sink) observe(b []byte) {
	if !acp.IsObject(b) {
		return
	}
	// A request or notification names its session near the top of its params (its method and
	// params come first in practice): Find reads no further than that member. Walking every frame
	// to its end for members it cannot hold was most of the time encoding a batch took.
	var p, id [1][]byte
	if acp.Find(b, p[:], "params"); acp.IsObject(p[0]) {
		acp.Find(p[0], id[:], "sessionId")
		if id, ok := acp.Unquote(id[0]); ok && id != "" {
			s.noteSession(id)
		}
		return
	}
	// A response: its result may name a new session, or the agent (initialize).
	if !bytes.Contains(b, []byte("sessionId")) && !bytes.Contains(b, []byte("agentInfo")) {
		return
	}
	var r [1][]byte
	if acp.Lookup(b, r[:], "result"); !acp.IsObject(r[0]) {
		return
	}
	var m [2][]byte
	acp.Lookup(r[0], m[:], "sessionId", "agentInfo")
	if id, ok := acp.Unquote(m[0]); ok && id != "" {
		s.noteSession(id)
	}
	if acp.IsObject(m[1]) {
		if im := acp.DecodeImplementation(m[1]); im.Name != "" {
			s.Agent = im.Name
		}
	}
}

// remember keeps the sessions of the batch just posted when the dashboard took it.
func (s *Sink) remember(taken bool) {
	if taken && s.seen == nil {
		s.seen = map[string]bool{}
	}
	for id := range s.batch {
		if taken && len(s.seen) < maxSeen {
			s.seen[id] = true
		}
		delete(s.batch, id)
	}
}

// closeSessions tells the dashboard that this connection's sessions ended, as the client's
// session/close would: the proxy is going away, and its agent with it. It is one post, made only
// while the dashboard answers and bounded by closeWait, so a proxy never lingers on its way out.
func (s *Sink) closeSessions(ctx context.Context) {
	if s.down || len(s.seen) == 0 {
		return
	}
	var body []byte
	now := time.Now()
	for i, id := range slices.Sorted(maps.Keys(s.seen)) {
		msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("plandash-close-%d", i), "method": "session/close",
			"params": map[string]any{"sessionId": id}})
		if err != nil {
			continue
		}
		body = appendEnvelope(body, acp.ClientToAgent, now, msg)
	}
	ctx, cancel := context.WithTimeout(ctx, closeWait)
	defer cancel()
	if err := s.post(ctx, body); err != nil {
		s.Log.Info("plandash: could not tell the dashboard the sessions ended; they look gone after the idle time", "err", err)
	}
}

// appendEnvelope wraps one message the way acp.DecodeLine reads recorded transcripts.
func appendEnvelope(b []byte, dir acp.Direction, at time.Time, msg []byte) []byte {
	return appendEnvelopeTS(b, dir, at.UTC().AppendFormat(nil, time.RFC3339Nano), msg)
}

// appendEnvelopeTS is appendEnvelope with the time already formatted (UTC, RFC 3339 with
// nanoseconds).
func appendEnvelopeTS(b []byte, dir acp.Direction, ts, msg []byte) []byte {
	b = append(b, `{"dir":"`...)
	b = append(b, dir...)
	b = append(b, `","ts":"`...)
	b = append(b, ts...)
	b = append(b, `","msg":`...)
	b = append(b, msg...)
	return append(b, "}\n"...)
}

// isPermanent reports whether a failed post should be dropped rather than retried. 400: nothing
// in the batch could be applied, 413: too big; sending the same bytes again cannot help.
// Anything else (401 before the token exists, 5xx, a proxy's 502, no answer) may pass later.
func isPermanent(err error) bool {
	st := client.StatusOf(err)
	return st == http.StatusBadRequest || st == http.StatusRequestEntityTooLarge
}

func (s *Sink) post(ctx context.Context, body []byte) error {
	if len(body) == 0 {
		return nil
	}
	_, err := s.api.Ingest(ctx, bytes.NewReader(body), client.IngestOptions{Stream: s.Stream, Agent: s.Agent})
	return err
}
