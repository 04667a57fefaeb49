package metrics

import (
	"context"
	"runtime"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/plans"
)

// Set is plandash's own series, registered on one Registry. Every part of the application that
// moves a figure is handed the Set (or the one series it needs) when it is built.
type Set struct {
	Registry *Registry

	// IngestPosts counts requests that carried agents' traffic in, by source: "ingest"
	// (POST /api/v1/ingest) or "hook:<agent>" for the agents plandash has hooks for.
	IngestPosts *CounterVec
	// IngestMessages counts JSON-RPC messages taken in by POST /api/v1/ingest, by kind
	// (MessageKind).
	IngestMessages *CounterVec
	// HookBusy counts hook events answered 503 (try again) because the queue of events
	// acknowledged but not yet recorded was full, by agent.
	HookBusy *CounterVec
	// Sockets is the number of open live sockets.
	Sockets *Gauge
	// SocketFrames counts frames written to sockets, by "live" (fan-out) or "catchup".
	SocketFrames *CounterVec
	// FanoutLag is the time from a change's announcement (right after its commit, or after
	// another instance's note arrived) to a frame of it written to a socket.
	FanoutLag *Histogram
	// StoreLatency times store calls, by store (plans, approvals, shared_history) and call.
	StoreLatency *HistogramVec
	// ListenNotes counts other instances' changes applied here (PostgreSQL), by kind and by
	// how they arrived: "notify" (heard) or "catchup" (read back after the listening
	// connection was lost, or a payload too big to send).
	ListenNotes *CounterVec
	// ListenReconnects counts failures of the listening connection (lost, or not opened on a
	// retry): each is followed by another attempt.
	ListenReconnects *Counter
}

// New registers plandash's series and its build information (version, Go version, store).
func New(version, store string) *Set {
	r := NewRegistry()
	s := &Set{
		Registry:       r,
		IngestPosts:    r.Counter("plandash_ingest_posts_total", "Requests that carried agents' traffic in, by source.", "source"),
		IngestMessages: r.Counter("plandash_ingest_messages_total", "JSON-RPC messages taken in by POST /api/v1/ingest, by kind.", "kind"),
		HookBusy:       r.Counter("plandash_hook_busy_total", "Hook events answered 503 with Retry-After because the queue of events not yet recorded was full, by agent.", "agent"),
		Sockets:        r.Gauge("plandash_sockets_open", "Live websocket connections open now."),
		SocketFrames:   r.Counter("plandash_socket_frames_total", "Frames written to live sockets, by path: live fan-out or catch-up.", "path"),
		FanoutLag: r.Histogram("plandash_fanout_lag_seconds", "Time from a change's announcement (after its commit, or after another instance's note arrived) to a frame of it written to a socket.",
			[]float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}).With(),
		StoreLatency: r.Histogram("plandash_store_seconds", "Time taken by store calls (commits and reads), by store and call.", nil, "store", "call"),
		ListenNotes:  r.Counter("plandash_listen_notes_total", "Other instances' changes applied here (PostgreSQL), by kind and by how they arrived.", "kind", "via"),
		ListenReconnects: r.Counter("plandash_listen_reconnects_total",
			"Times the PostgreSQL listening connection failed or could not be opened; each is followed by another attempt and, once listening, a catch-up.").With(),
	}
	// Series that always exist start at zero, so rate() sees their first increase.
	s.IngestPosts.With("ingest")
	s.IngestMessages.With(acp.MethodSessionUpdate)
	s.SocketFrames.With("live")
	s.SocketFrames.With("catchup")
	if version == "" {
		version = "dev"
	}
	r.Info("plandash_build_info", "Build information: version, Go version and the store in use.",
		[]string{"version", "goversion", "store"}, []string{version, runtime.Version(), store})
	return s
}

// Pending registers the pending-approvals gauge, read from the store at each scrape.
func (s *Set) Pending(count func(context.Context) (int, error), onErr func(error)) {
	s.Registry.GaugeFunc("plandash_approvals_pending", "Approval requests waiting for a decision.",
		func(ctx context.Context) (float64, error) {
			n, err := count(ctx)
			return float64(n), err
		}, onErr)
}

// Time returns a function that records, when called, the time since Time was called in the
// store latency histogram.
func (s *Set) Time(store, call string) func() {
	h := s.StoreLatency.With(store, call)
	start := time.Now()
	return func() { h.ObserveDuration(time.Since(start)) }
}

// CountIngest counts one ingest post and its messages by kind.
func (s *Set) CountIngest(items []plans.Item) {
	s.IngestPosts.With("ingest").Inc()
	for _, it := range items {
		s.IngestMessages.With(MessageKind(it.Msg.Method, it.Msg.IsResponse())).Inc()
	}
}

// MessageKind is the label a message is counted under: its method when ACP defines it
// (acp.KnownMethod), "response" for an answer, "other" for any other method, so a client
// cannot grow the series without bound.
func MessageKind(method string, isResponse bool) string {
	switch {
	case method == "" && isResponse:
		return "response"
	case acp.KnownMethod(method):
		return method
	}
	return "other"
}
