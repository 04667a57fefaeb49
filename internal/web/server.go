// Package web is plandash's HTTP side: pages, the JSON API, ingest and the live socket.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/plandash/plandash/internal/agents/claude"
	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/store/sqlite"
)

// Config is everything the server is told at start-up.
type Config struct {
	DataDir        string        // holds plandash.db and the token
	Token          string        // "" loads or creates the token in DataDir
	AllowRoots     []string      // file plans under these directories show their content
	FrameAncestors []string      // CSP frame-ancestors sources; default 'self'
	OriginPatterns []string      // extra origins allowed to open the socket (hosts of embedding pages)
	MaxBody        int64         // ingest body limit; default 8 MiB
	MaxLine        int           // ingest line limit; default 4 MiB
	Idle           time.Duration // a session without activity this long leaves the overview; default 30m
	Log            *slog.Logger
	Now            func() time.Time
	PlansDir       string // docker-agent's shared plans directory; "" is its default (~/.cagent/plans)
	User           string // who decides at the gate when no trusted header names someone
	UserHeader     string // header a trusted reverse proxy sets to the signed-in user's name
	Version        string
}

// Server is a running plandash: store, domain service, hub and HTTP handler.
type Server struct {
	cfg     Config
	log     *slog.Logger
	db      *sqlite.DB // the one database handle; the stores below are its
	store   plans.Store
	svc     *plans.Service
	hub     *hub.Hub
	render  *renderer
	live    *live.Live
	auth    *Auth
	streams *streams
	handler http.Handler
	token   string
	perms   *permissions.Inbox
	claude  *claude.Service // Claude Code's hooks

	// Each capability keeps its state in its own file.
	approvalState
	sharedState
}

// Open opens the store in cfg.DataDir and builds the server.
func Open(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("no data directory")
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 8 << 20
	}
	if cfg.MaxLine <= 0 {
		cfg.MaxLine = 4 << 20
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	token := cfg.Token
	if token == "" {
		t, err := LoadOrCreateToken(cfg.DataDir)
		if err != nil {
			return nil, err
		}
		token = t
	}
	files, err := NewFileRoots(cfg.AllowRoots)
	if err != nil {
		return nil, err
	}
	db, err := sqlite.Open(ctx, filepath.Join(cfg.DataDir, "plandash.db"))
	if err != nil {
		return nil, err
	}
	store := db.Plans()
	svc := plans.NewService(store, plans.Config{Idle: cfg.Idle, Now: cfg.Now, Log: cfg.Log})
	s := &Server{
		cfg: cfg, log: cfg.Log, db: db, store: store, svc: svc, hub: hub.New(hub.Options{}),
		auth: NewAuth(token), streams: newStreams(1024), token: token,
	}
	s.render = &renderer{svc: svc, files: files}
	s.perms = permissions.New(cfg.Now, func(string) { s.live.Announce(live.Change{Kind: changePermissions}) })
	s.live = live.New(s.hub, live.Options{Log: cfg.Log, Now: cfg.Now})
	s.render.live = s.live
	s.registerTopics()
	svc.OnChange(s.sessionsChanged)
	for _, open := range []func(context.Context) error{s.openApprovals, s.openSharedPlans} {
		if err := open(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	s.linkSharedToGate()
	home, _ := os.UserHomeDir()
	s.claude = claude.NewService(svc, s.gate, claude.Config{Home: home, Log: cfg.Log})
	s.handler = s.routes()
	return s, nil
}

// Handler is the HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Token is the token clients must present.
func (s *Server) Token() string { return s.token }

// Service is the domain service, for in-process producers such as the demo agent.
func (s *Server) Service() *plans.Service { return s.svc }

// Serve serves on ln until ctx ends, then shuts down gracefully and closes the store.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.live.Run(ctx)
	go s.sweepIdle(ctx)
	s.runBackground(ctx)
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		cancel() // stops the background work closeSharedPlans waits for
		s.closeSharedPlans()
		s.db.Close()
		return err
	case <-ctx.Done():
	}
	shut, cancelShut := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelShut()
	err := srv.Shutdown(shut)
	if cerr := errors.Join(s.closeSharedPlans(), s.db.Close()); cerr != nil && err == nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	return err
}

// Close closes the store of a server that was never served.
func (s *Server) Close() error { return errors.Join(s.closeSharedPlans(), s.db.Close()) }

// now is the server's clock.
func (s *Server) now() time.Time { return s.svc.Now() }
