// Package app is plandash's whole application, assembled: the one database handle, the stores on
// it, the services, the live layer, the watchers, and the HTTP server that speaks for them. The
// commands (`plandash serve`, `demo`, `acp --serve`) and the tests that need a real server build
// it here, so there is one wiring and a newcomer reads it top to bottom in Open.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/agents/agentkit"
	"github.com/plandash/plandash/internal/agents/registry"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/dag"
	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/mcpserver"
	"github.com/plandash/plandash/internal/metrics"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/sharedplans"
	"github.com/plandash/plandash/internal/store/postgres"
	"github.com/plandash/plandash/internal/store/sqlite"
	"github.com/plandash/plandash/internal/tokens"
	"github.com/plandash/plandash/internal/waits"
	"github.com/plandash/plandash/internal/web"
	"github.com/plandash/plandash/web/templates"
)

// Config is everything the application is told at start-up.
type Config struct {
	web.Config                   // how the HTTP side behaves
	DataDir     string           // holds plandash.db and notify-outbox.db (unless DB is set) and the token
	DB          string           // a postgres:// URL to keep the data in PostgreSQL; "" keeps SQLite in DataDir
	DBPool      int32            // PostgreSQL connections at most; 0 is pgx's default
	Token       string           // "" loads or creates the token in DataDir
	AllowRoots  []string         // file plans, hooks' plan files and the MCP file tools may read under these directories
	AllowWrite  []string         // export_plan_to_file (MCP over HTTP, the tools API) may write under these; none: it is refused
	Home        string           // the server user's home, whose agents' plan directories hooks may name; os.UserHomeDir when ""
	Idle        time.Duration    // a session without activity this long leaves the overview; default 30m
	Now         func() time.Time // the clock; time.Now when nil
	PlansDir    string           // docker-agent's shared plans directory; "" is its default (~/.cagent/plans)
	MCPIdle     time.Duration    // an MCP session over HTTP without a request this long is closed; 0: mcpserver's default
	MCPSessions int              // live MCP sessions per credential at most; 0: mcpserver's default
	Version     string

	Retention plans.Retention // how much plan history to keep; zero keeps all of it
	// Discover is where each agent keeps its own session files, by agent name (the registry's):
	// Claude Code's transcripts (~/.claude/projects), Codex's rollouts ($CODEX_HOME/sessions),
	// Gemini CLI's chats (~/.gemini/tmp), OpenCode's database. They are read read-only in the
	// background; an agent absent or "" reads none.
	Discover map[string]string
	// DiscoverSince is how far back agents' own session files are first read; each follower's
	// default when zero.
	DiscoverSince time.Duration
	// Servers are agents' servers to follow, by agent name: OpenCode's (http://127.0.0.1:4096).
	Servers map[string][]string
	Getenv  func(string) string // the environment, for OpenCode's server password; os.Getenv when nil

	Notify    []notify.Target // targets from --notify
	PublicURL string          // the absolute URL links in notifications point under; "" derives it from the listener
	// OpenBrowser opens a URL in the desktop's browser when a wait begins and no page is open;
	// nil never opens one (tests, CI, servers).
	OpenBrowser func(url string) error
}

// Database is the one database handle: the stores on it, and its end. *sqlite.DB and
// *postgres.DB are both one.
type Database interface {
	Plans() plans.Store
	Approvals() approval.Store
	SharedHistory() sharedplans.HistoryStore
	Tokens() tokens.Store
	Waits() waits.Store
	Notify() notify.Store
	Close() error
}

// openDatabase opens the database cfg names: PostgreSQL for a postgres:// URL, else the SQLite
// file in the data directory.
func openDatabase(ctx context.Context, cfg Config) (Database, error) {
	switch {
	case cfg.DB == "":
		return sqlite.Open(ctx, filepath.Join(cfg.DataDir, "plandash.db"))
	case strings.HasPrefix(cfg.DB, "postgres://"), strings.HasPrefix(cfg.DB, "postgresql://"):
		return postgres.Open(ctx, cfg.DB, postgres.Options{MaxConns: cfg.DBPool})
	}
	return nil, errors.New("--db: want a postgres:// URL (or nothing, for SQLite in the data directory)")
}

// App is a running plandash.
type App struct {
	DB     Database
	Plans  *plans.Service
	Gate   *approval.Gate
	Shared *sharedplans.Service
	Perms  *permissions.Inbox
	// Waits is the one list of what agents wait on a person for, read by pages and the API.
	Waits *waits.Service
	// Asked is the waits plandash keeps itself: agents' questions, sessions waiting for input.
	Asked  *waits.Asked
	Live   *live.Live
	Server *web.Server
	Token  string
	Tokens *tokens.Service // the per-agent tokens
	// Metrics is what GET /metrics shows; every part above counts into it.
	Metrics *metrics.Set
	// Notifier carries waits to targets outside the tab (Web Push, ntfy, Slack, Discord, webhooks).
	Notifier *notify.Notifier
	// Listener hears the changes other instances make (PostgreSQL only; nil on SQLite).
	Listener *postgres.Listener

	agents []func(context.Context) // followers of agents' own files and servers
}

// Open builds the application on the database cfg names: cfg.DB, else the SQLite file in
// cfg.DataDir.
func Open(ctx context.Context, cfg Config) (*App, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("no data directory")
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	token := cfg.Token
	if token == "" {
		t, err := tokens.LoadOrCreateServerToken(cfg.DataDir)
		if err != nil {
			return nil, err
		}
		token = t
	}
	var roots *files.Roots // nil: no file is read for anyone
	if len(cfg.AllowRoots) > 0 {
		r, err := files.NewRoots(cfg.AllowRoots...)
		if err != nil {
			return nil, fmt.Errorf("--allow-root: %w", err)
		}
		roots = r
	}

	var writes files.Policy // nil: no file is written for anyone
	if len(cfg.AllowWrite) > 0 {
		w, err := files.NewRoots(cfg.AllowWrite...)
		if err != nil {
			return nil, fmt.Errorf("--allow-write: %w", err)
		}
		writes = w
	}

	db, err := openDatabase(ctx, cfg)
	if err != nil {
		return nil, err
	}
	storeName := "sqlite"
	if _, ok := db.(*postgres.DB); ok {
		storeName = "postgres"
	}
	m := metrics.New(cfg.Version, storeName)
	host, _ := os.Hostname()
	svc := plans.NewService(m.TimePlans(db.Plans()), plans.Config{Idle: cfg.Idle, Now: cfg.Now, Log: cfg.Log, Host: host, Retention: cfg.Retention})
	gate, err := approval.New(ctx, m.TimeApprovals(db.Approvals()), approval.Config{Now: cfg.Now, Log: cfg.Log, ValidateDAG: dag.Check,
		Place: sessionPlace(svc)})
	if err != nil {
		db.Close()
		return nil, err
	}
	store := sharedplans.New(cfg.PlansDir)
	shared := sharedplans.NewService(store, m.TimeSharedHistory(db.SharedHistory()), sharedplans.ServiceConfig{Log: cfg.Log, Now: cfg.Now})
	gate.OnChange(acting(shared.GateChanged)) // decisions on shared plans land on the plans
	var policy files.Policy
	if roots != nil {
		policy = roots
	}
	// Reading roots are what people are shown; an agent writes only where it was allowed to.
	tools := sharedplans.NewToolset(store, policy).WithWrites(writes,
		"export_plan_to_file is off: this server writes files only under a directory it was started with --allow-write DIR")
	home := cfg.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	mcpSrv := mcpserver.New(mcpserver.Options{Version: cfg.Version, SharedPlans: tools, Approvals: gateApprover{gate}})

	evicted := m.Registry.Counter("plandash_mcp_sessions_evicted_total",
		"MCP sessions closed to make room for a newer one of the same credential (--mcp-sessions).").With()
	mcpHTTP := mcpserver.NewHTTPHandler(mcpSrv, mcpserver.HTTPOptions{IdleTimeout: cfg.MCPIdle,
		MaxPerCredential: cfg.MCPSessions, Credential: web.Credential, OnEvict: evicted.Inc})
	m.Registry.GaugeFunc("plandash_mcp_sessions", "MCP sessions over HTTP open now.",
		func(context.Context) (float64, error) { return float64(mcpHTTP.Sessions()), nil }, nil)
	m.Pending(gate.CountPending, func(err error) { cfg.Log.Warn("metrics: counting pending approvals", "err", err) })
	a := &App{
		DB: db, Plans: svc, Gate: gate, Shared: shared, Token: token, Metrics: m,
		Tokens: tokens.NewService(db.Tokens(), cfg.Now, cfg.Log),
		Perms:  permissions.New(cfg.Now),
		Asked:  waits.NewAsked(db.Waits(), cfg.Now, cfg.Log),
		Live:   live.New(hub.New(hub.Options{}), live.Options{Log: cfg.Log, Now: cfg.Now}),
	}
	var ready func(context.Context) error // nil: web probes the database through the gate
	if h, ok := db.(faulting); ok {
		// Not ready while the storage cannot write (a full disk, the database away), and
		// ready again by itself; the failures are counted by cause.
		ready = h.Ready
		m.StoreUnavailable(faultLabels(), func(label string) uint64 { return h.Health().Count(faultCause(label)) })
	}
	if pg, ok := db.(*postgres.DB); ok {
		// Instances share the permission requests, and hear each other's changes.
		a.Perms = permissions.NewOn(pg.Permissions(), cfg.Now, cfg.Log)
		a.Listener = pg.Listener(remote{live: a.Live, gate: gate, perms: a.Perms, asked: a.Asked, log: cfg.Log, notes: m.ListenNotes}.note,
			postgres.ListenOptions{Log: cfg.Log, OnReconnect: m.ListenReconnects.Inc})
	}
	a.Waits = waits.New(gate, a.Perms, svc, a.Asked, waits.Config{Now: cfg.Now, Log: cfg.Log, Host: host})
	ncfg := notify.Config{BaseURL: cfg.PublicURL, Static: cfg.Notify, Now: cfg.Now, Log: cfg.Log}
	var opener *browserOpener
	if cfg.OpenBrowser != nil {
		opener = &browserOpener{open: cfg.OpenBrowser, pages: m.Sockets.Value, token: token, now: cfg.Now, log: cfg.Log}
		ncfg.OnBegin = opener.began
	}
	a.Notifier = notify.New(db.Notify(), &waitsSource{w: a.Waits, gate: a.Gate}, ncfg)
	if opener != nil {
		opener.base = a.Notifier.Base
	}
	hooks := a.buildAgents(cfg, home)
	a.Server = web.NewServer(web.Deps{
		Config: cfg.Config, Token: token, Tokens: a.Tokens, Ready: ready,
		Plans: svc, Gate: gate, Shared: shared, SharedTools: tools, Perms: a.Perms, Waits: a.Waits, Live: a.Live, Files: roots,
		Notify: a.Notifier, Answers: waitsAnswerer{w: a.Waits, user: cfg.User},
		Hooks:   hooks,
		Connect: connectRows(cfg.Discover),
		MCP:     mcpHTTP,
		Metrics: m,
	})
	if !cfg.Retention.IsZero() {
		a.agents = append(a.agents, func(ctx context.Context) { prune(ctx, svc, cfg.Now, cfg.Log) })
	}
	return a, nil
}

// prune drops plan history past the retention now and then every hour; the current state of
// every plan is never dropped.
func prune(ctx context.Context, svc *plans.Service, now func() time.Time, log *slog.Logger) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		st, err := svc.Prune(ctx, now())
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("pruning plan history", "err", err)
		case st.Revisions > 0:
			log.Info("pruned plan history", "revisions", st.Revisions, "plans", st.Plans, "pages", st.Pages)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// connectRows are the registry's agents as the empty overview shows them; an agent's sessions
// show by themselves when serve reads its files (discover: where, by agent).
func connectRows(discover map[string]string) []templates.ConnectAgent {
	var rows []templates.ConnectAgent
	for _, ag := range registry.All() {
		rows = append(rows, templates.ConnectAgent{Title: ag.Title, Command: ag.Connect, Discovered: discover[ag.Name] != "", Restart: ag.Plugins != nil})
	}
	return rows
}

// buildAgents builds every agent of the registry on the application's services: the hook
// handlers by agent name, for the hook route, and the followers of the agents' own files and
// servers, which Serve runs.
func (a *App) buildAgents(cfg Config, home string) map[string]web.AgentHooks {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	hooks := map[string]web.AgentHooks{}
	for _, ag := range registry.All() {
		if ag.Build == nil {
			continue
		}
		p := ag.Build(agentkit.Deps{
			Plans: a.Plans, Gate: a.Gate, Asker: a.Asked, PlanDirs: planDirs(cfg.AllowRoots, home, ag.PlanDir),
			Log: cfg.Log, Now: cfg.Now, DataDir: cfg.DataDir, Since: cfg.DiscoverSince,
			Sessions: cfg.Discover[ag.Name], Servers: cfg.Servers[ag.Name], Getenv: getenv,
		})
		if p.Hooks != nil {
			hooks[ag.Name] = p.Hooks
		}
		a.agents = append(a.agents, p.Run...)
	}
	return hooks
}

// Serve serves on ln until ctx ends, with everything that runs beside the HTTP server (the live
// layer, the gate's deadlines, the shared-plans watcher, the idle sweep), then shuts down gracefully and closes
// the database once nothing uses it.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var bg sync.WaitGroup
	a.Notifier.SetBaseURL("http://" + ln.Addr().String())
	watchIdle := func(ctx context.Context) { a.Plans.WatchIdle(ctx, 10*time.Second) }
	for _, run := range []func(context.Context){a.Live.Run, a.Gate.Run, a.Shared.Run, a.Notifier.Run, watchIdle} {
		bg.Go(func() { run(ctx) })
	}
	if a.Listener != nil {
		bg.Go(func() { a.Listener.Run(ctx) })
	}
	for _, run := range a.agents {
		bg.Go(func() { run(ctx) })
	}
	err := a.Server.Serve(ctx, ln)
	cancel()
	bg.Wait()
	if cerr := a.DB.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("close the database: %w", cerr)
	}
	return err
}

// Close closes an application that was never served.
func (a *App) Close() error { return a.DB.Close() }

// gateApprover is the gate as the MCP approval tool sees it.
type gateApprover struct{ g *approval.Gate }

func (a gateApprover) Submit(ctx context.Context, sub approval.Submission) (approval.Request, error) {
	r, _, err := a.g.Submit(ctx, sub)
	return r, err
}

func (a gateApprover) Wait(ctx context.Context, id string, d time.Duration) (approval.Request, error) {
	return a.g.Wait(ctx, id, d)
}

// sessionPlace says where a session runs, for auto-approve rules limited to a machine or a
// directory.
func sessionPlace(svc *plans.Service) func(context.Context, string) approval.Place {
	return func(ctx context.Context, id string) approval.Place {
		m, cwd := svc.Where(ctx, id)
		return approval.Place{Machine: m, Cwd: cwd}
	}
}
