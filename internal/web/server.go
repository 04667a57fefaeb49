// Package web is plandash's HTTP side: pages, the JSON API, ingest, the live socket, auth, CSRF
// and headers. It speaks HTTP for the application's services, which it is handed (Deps); it opens
// no store and holds no domain logic. What each page shows, and the live topics that redraw it,
// come from package views.
package web

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/agents/capture"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/metrics"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/tokens"
	"github.com/plandash/plandash/internal/views"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/web/static"
	"github.com/plandash/plandash/web/templates"
)

// Config is how the HTTP side behaves.
type Config struct {
	FrameAncestors []string // CSP frame-ancestors sources; default 'self'
	OriginPatterns []string // extra origins allowed to open the socket (hosts of embedding pages)
	MaxBody        int64    // ingest body limit; default 8 MiB
	MaxLine        int      // ingest line limit; default 4 MiB
	User           string   // who decides at the gate when no trusted header names someone
	UserHeader     string   // header a trusted reverse proxy sets to the signed-in user's name
	ClientIPHeader string   // header a trusted reverse proxy sets to the client's address
	Hosts          []string // host names (besides loopback names and IP addresses) the server answers to
	Log            *slog.Logger
}

// Deps is what the server speaks HTTP for: the application's services, built by the caller.
type Deps struct {
	Config
	Token       string          // the bearer token of the API, the socket and (once) the pages
	Tokens      *tokens.Service // per-agent tokens the API also takes; nil takes none
	Plans       *plans.Service
	Gate        *approval.Gate
	Shared      *sharedplans.Service
	SharedTools *sharedplans.Toolset // the eight tools, file tools confined to the allowed roots
	Perms       *permissions.Inbox
	// Waits is the one list of what agents wait on a person for; nil builds one over Gate, Perms
	// and Plans (without questions).
	Waits *waits.Service
	// Notify carries waits outside the tab (targets, Web Push, answer links); nil turns the
	// notification routes off.
	Notify *notify.Notifier
	// Answers answers a wait from a capability link; needed with Notify.
	Answers notify.Answerer
	Live    *live.Live
	Files   *files.Roots          // file plans show content under these; nil shows none
	Hooks   map[string]AgentHooks // by agent name in /api/v1/hooks/{agent}: the registry's agents (internal/agents/registry)
	// Connect are the agents the empty overview tells a newcomer how to connect.
	Connect []templates.ConnectAgent
	MCP     http.Handler // MCP over streamable HTTP, served at /mcp
	Metrics *metrics.Set // what GET /metrics shows; nil counts into a set of its own

	// Ready is GET /readyz's probe: nil error when the database answers and is migrated. When
	// nil, the probe is a read through the gate.
	Ready func(context.Context) error
}

// Server is plandash's HTTP handler over its services. Its methods are the handlers routes.go
// names, besides routes, Handler and Serve themselves; the rest of web is plain functions
// (middleware.go, html.go, problem.go), Auth's, and pageAnswers' (a page shown again).
type Server struct {
	cfg         Config
	log         *slog.Logger
	plans       *plans.Service
	gate        *approval.Gate
	shared      *sharedplans.Service
	sharedTools *sharedplans.Toolset
	perms       *permissions.Inbox
	waits       *waits.Service
	notify      *notify.Notifier // nil: notifications are off
	links       notify.Links
	live        *live.Live
	hooks       map[string]AgentHooks
	connect     []templates.ConnectAgent
	mcp         http.Handler
	ready       func(context.Context) error
	metrics     *metrics.Set
	views       *views.Pages // what each page shows, and its live topics
	pages       pageAnswers  // a page under a status, with a notice: a refused form shown again
	assets      *assets
	auth        *Auth
	streams     *plans.Streams
	handler     http.Handler
	stop        chan struct{}  // closed when graceful shutdown begins
	captures    *capture.Queue // agents' events acknowledged, to be recorded in order (while Serve runs)
}

// NewServer builds the server and its pages (package views), which register the live topics
// and listen to the services' changes.
func NewServer(d Deps) *Server {
	if d.MaxBody <= 0 {
		d.MaxBody = 8 << 20
	}
	if d.MaxLine <= 0 {
		d.MaxLine = 4 << 20
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Metrics == nil {
		d.Metrics = metrics.New("", "")
	}
	if d.Waits == nil {
		d.Waits = waits.New(d.Gate, d.Perms, d.Plans, nil, waits.Config{Now: d.Plans.Now, Log: d.Log})
	}
	s := &Server{
		cfg: d.Config, log: d.Log, plans: d.Plans, gate: d.Gate, shared: d.Shared, sharedTools: d.SharedTools,
		perms: d.Perms, waits: d.Waits, live: d.Live, hooks: d.Hooks, connect: d.Connect, mcp: d.MCP, ready: d.Ready, metrics: d.Metrics,
		notify: d.Notify,
		auth:   NewAuth(d.Token, d.Log, d.Plans.Now), streams: plans.NewStreams(1024), stop: make(chan struct{}),
		captures: capture.New(d.MaxBody, d.Log),
	}
	s.auth.TrustClientIPHeader(d.Config.ClientIPHeader)
	if d.Tokens != nil {
		s.auth.WithTokens(d.Tokens, d.Gate.Get)
	}
	if d.Notify != nil {
		s.links = d.Notify.Links(d.Answers)
	}
	a, err := newAssets(static.FS, map[string][]byte{"dag.css": dagCSS(), "icon-192.png": appIcon(192), "icon-512.png": appIcon(512)}, d.Log)
	if err != nil {
		panic(err) // the files are embedded in the binary: unreadable means a broken build
	}
	s.assets = a
	s.views = views.New(views.Deps{Plans: d.Plans, Gate: d.Gate, Shared: d.Shared, Perms: d.Perms, Waits: d.Waits,
		Notify: d.Notify, Live: d.Live, Files: d.Files, Log: d.Log})
	s.pages = pageAnswers{views: s.views, auth: s.auth, log: d.Log}
	s.handler = s.routes()
	return s
}

// Handler is the HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve serves on ln until ctx ends, then shuts down gracefully: requests in flight get a few
// seconds to finish. What the server runs beside (recording the agents' events it acknowledged)
// has stopped when it returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var bg sync.WaitGroup
	defer bg.Wait()
	// Recording acknowledged events outlives the requests: it stops only after Shutdown, below.
	captureCtx, stopCapture := context.WithCancel(context.WithoutCancel(ctx))
	defer stopCapture()
	s.captures.Running.Store(true) // before Serve answers: the first events are queued, not handled in the request
	bg.Go(func() { s.captures.Run(captureCtx) })
	// Requests get a context of their own that ends only once shutdown has been announced, so a
	// waiting request always knows why it was woken.
	reqCtx, endRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer endRequests()
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Waiting requests see their context end with the server's; they answer "shutting down,
	// retry" (drain), and Shutdown waits for them to have done so.
	close(s.stop)
	endRequests()
	shut, cancelShut := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelShut()
	err := srv.Shutdown(shut)
	<-errc
	stopCapture() // every request has ended: record what they acknowledged, then stop
	return err
}
