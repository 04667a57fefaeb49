package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/agents/registry"
	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/demo"
	"github.com/plandash/plandash/internal/mcpserver"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/web"
)

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error {
	*l = append(*l, strings.Fields(v)...)
	return nil
}

// defaultDataDir is $XDG_DATA_HOME/plandash, or ~/.local/share/plandash: where the client
// commands look for the token, too.
func defaultDataDir(getenv func(string) string) string { return client.DefaultDataDir(getenv) }

type serveFlags struct {
	addr, data, token, logFormat string
	plansDir, user, userHeader   string
	clientIPHeader               string
	allowRoots, frameAncestors   listFlag
	allowWrite                   listFlag
	codexSessions                string
	discover                     bool
	discoverDays                 int
	hosts                        listFlag
	retentionAge                 time.Duration
	retentionRevisions           int
	db                           string
	dbPool                       int
	opencode                     listFlag
	idle                         time.Duration
	mcpIdle                      time.Duration
	mcpSessions                  int
	tlsCert, tlsKey              string
	maxBody                      int64
	maxLine                      int
	notify                       []notify.Target
	publicURL                    string
	openBrowser                  bool
}

func (f *serveFlags) register(fs *flag.FlagSet, getenv func(string) string, isDemo bool) {
	data := defaultDataDir(getenv)
	if isDemo {
		data = filepath.Join(data, "demo")
	}
	addrHelp := "listen address (loopback by default; anything else exposes your agents' plans)"
	dataHelp := "data directory: the SQLite database, the token and the address in use"
	plansHelp := "docker-agent's shared plans directory (default $PLANDASH_PLANS_DIR, else ~/.cagent/plans)"
	if isDemo {
		addrHelp += "; when not given and 7420 is taken, a free port"
		dataHelp += ", the files of the demo's file plans (plans/) and its shared plans (shared-plans/)"
		plansHelp = "the demo's shared plans directory (default $PLANDASH_PLANS_DIR, else shared-plans/ in --data)"
	}
	fs.StringVar(&f.addr, "addr", "127.0.0.1:7420", addrHelp)
	fs.StringVar(&f.data, "data", data, dataHelp)
	// No default shown from the environment: the URL may carry a password, and -h prints defaults.
	fs.StringVar(&f.db, "db", "", "keep the data in PostgreSQL at this postgres:// URL instead of SQLite (default $PLANDASH_DB)")
	fs.IntVar(&f.dbPool, "db-pool", 0, "PostgreSQL connections at most (default: pgx's, the larger of 4 and the number of CPUs)")
	fs.StringVar(&f.token, "token", "", "API and page token (default: generated once and stored in the data directory)")
	fs.Var(&f.allowRoots, "allow-root", "show file plans, and .md plan files hooks name, under this directory (repeatable)")
	fs.Var(&f.allowWrite, "allow-write", "let agents' export_plan_to_file (MCP over HTTP, the tools API) write files under this directory (repeatable; default: nowhere)")
	fs.Var(&f.frameAncestors, "frame-ancestors", "CSP frame-ancestors sources allowed to embed the pages, e.g. 'vscode-webview: http://localhost:*' (default 'self')")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	fs.DurationVar(&f.idle, "idle", 30*time.Minute, "a session with no activity this long leaves the overview")
	fs.DurationVar(&f.mcpIdle, "mcp-idle", mcpserver.DefaultIdleTimeout, "an MCP session at /mcp without a request this long is closed (the client initializes again)")
	fs.IntVar(&f.mcpSessions, "mcp-sessions", mcpserver.DefaultSessionsPerCredent, "live MCP sessions at /mcp per token at most; a new one closes that token's longest-idle one")
	fs.Int64Var(&f.maxBody, "max-body", 8<<20, "largest ingest or hook request body in bytes")
	fs.IntVar(&f.maxLine, "max-line", 4<<20, "largest NDJSON line in bytes")
	fs.StringVar(&f.plansDir, "plans-dir", getenv("PLANDASH_PLANS_DIR"), plansHelp)
	fs.StringVar(&f.user, "user", userName(getenv), "the name decisions at the gate are recorded under")
	fs.StringVar(&f.userHeader, "user-header", "", "take the deciding user's name from this header, set by a trusted reverse proxy")
	fs.StringVar(&f.clientIPHeader, "client-ip-header", "", "take the client's address (for throttling wrong tokens, and logs) from this header, set by a trusted reverse proxy: X-Real-IP or X-Forwarded-For")
	fs.StringVar(&f.codexSessions, "codex-sessions", codexSessions(getenv, isDemo), "follow Codex CLI's rollout files under this directory (\"\" follows none)")
	fs.BoolVar(&f.discover, "discover", !isDemo, "show the sessions agents keep in their own files ("+discoveredTitles()+"), read-only, without any install")
	fs.IntVar(&f.discoverDays, "discover-days", 7, "with --discover, first read the agents' session files of this many recent days")
	fs.Var(&f.hosts, "host", "a host name the server answers to besides loopback names and IP addresses, e.g. plandash.example.com behind a proxy (repeatable; other names are refused against DNS rebinding)")
	fs.DurationVar(&f.retentionAge, "retention-age", 0, "drop plan revisions older than this, e.g. 720h (the current state of every plan is always kept; 0 keeps all)")
	fs.IntVar(&f.retentionRevisions, "retention-revisions", 0, "keep at most this many revisions of each plan (0 keeps all)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS with this PEM certificate (chain); needs --tls-key")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the PEM private key of --tls-cert")
	fs.Func("notify", "send notifications of waits to this target: ntfy://ntfy.sh/TOPIC, a Slack or Discord webhook URL, or webhook+https://… (repeatable; options after #, e.g. #delay=30s&kinds=plan&secret=S; see docs/notifications.md)", func(v string) error {
		t, err := notify.ParseFlag(v, len(f.notify)+1)
		if err == nil {
			f.notify = append(f.notify, t)
		}
		return err
	})
	fs.StringVar(&f.publicURL, "public-url", "", "the address people reach plandash at, for links in notifications, e.g. https://plandash.example.com (default: the listen address)")
	fs.BoolVar(&f.openBrowser, "open-browser", true, "on a loopback serve in a desktop session, open a waiting request in the default browser when no plandash page is open")
	fs.Var(&f.opencode, "opencode", "follow the OpenCode server at this URL, e.g. http://127.0.0.1:4096 (repeatable; $OPENCODE_SERVER_PASSWORD for its password)")
}

// userName is the login name, for recording who decided.
func userName(getenv func(string) string) string {
	if u := getenv("USER"); u != "" {
		return u
	}
	return "local user"
}

func serveCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, isDemo bool) error {
	name := "serve"
	if isDemo {
		name = "demo"
	}
	fs := flag.NewFlagSet("plandash "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f serveFlags
	f.register(fs, getenv, isDemo)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if f.db == "" {
		f.db = getenv("PLANDASH_DB")
	}
	if f.dbPool < 0 || f.dbPool > math.MaxInt32 {
		fmt.Fprintf(stderr, "plandash %s: --db-pool must be 0 (the default) or more, not %d\n", name, f.dbPool)
		return errUsage
	}
	if f.mcpIdle <= 0 || f.mcpSessions < 1 {
		fmt.Fprintf(stderr, "plandash %s: --mcp-idle must be more than 0 (not %s) and --mcp-sessions at least 1 (not %d)\n", name, f.mcpIdle, f.mcpSessions)
		return errUsage
	}
	if f.discoverDays < 1 || f.discoverDays > 3650 {
		fmt.Fprintf(stderr, "plandash %s: --discover-days must be 1 to 3650, not %d (--discover=false reads no agent files)\n", name, f.discoverDays)
		return errUsage
	}
	var log *slog.Logger
	switch f.logFormat {
	case "text":
		log = slog.New(slog.NewTextHandler(stderr, nil))
	case "json":
		log = slog.New(slog.NewJSONHandler(stderr, nil))
	default:
		fmt.Fprintf(stderr, "plandash %s: --log-format must be text or json, not %q\n", name, f.logFormat)
		return errUsage
	}
	tlsCfg, err := tlsConfig(f.tlsCert, f.tlsKey, log)
	if errors.Is(err, errHalfTLS) {
		fmt.Fprintf(stderr, "plandash %s: %v\n", name, err)
		return errUsage
	}
	if err != nil {
		return err
	}
	demoDir := filepath.Join(f.data, "plans")
	if isDemo {
		// The demo's shared plans stay out of docker-agent's real directory.
		if f.plansDir == "" {
			f.plansDir = filepath.Join(f.data, "shared-plans")
		}
		f.allowRoots = append(f.allowRoots, demoDir)
		if err := mkdir(demoDir); err != nil {
			return err
		}
	}
	if f.db == "" {
		if base := runningAt(ctx, f.data); base != "" {
			if isDemo {
				open := dashboardURL(base, f.data)
				if !isTerminal(stdout) { // a log keeps no token
					open = base + "/ (run `" + urlHint(getenv, true, f.data) + "` for the address with the token)"
				}
				fmt.Fprintf(stdout, "plandash demo is already running at %s\nOpen the dashboard: %s\n", base, open)
				return nil
			}
			return fmt.Errorf("plandash is already running at %s on this data directory (%s): stop it first, or start this one with another --data", base, f.data)
		}
	}
	srv, err := app.Open(ctx, app.Config{
		Config: web.Config{
			FrameAncestors: f.frameAncestors, OriginPatterns: originPatterns(f.frameAncestors),
			MaxBody: f.maxBody, MaxLine: f.maxLine, User: f.user, UserHeader: f.userHeader, ClientIPHeader: f.clientIPHeader, Log: log, Hosts: f.hosts,
		},
		DataDir: f.data, DB: f.db, DBPool: int32(f.dbPool), Token: f.token, AllowRoots: f.allowRoots, AllowWrite: f.allowWrite, Idle: f.idle, MCPIdle: f.mcpIdle, MCPSessions: f.mcpSessions, PlansDir: f.plansDir, Version: version,
		Discover:      discoverDirs(f.discover, f.codexSessions, getenv),
		DiscoverSince: time.Duration(f.discoverDays) * 24 * time.Hour, Servers: map[string][]string{"opencode": f.opencode}, Getenv: getenv,
		Notify: f.notify, PublicURL: f.publicURL, OpenBrowser: desktopOpener(f.openBrowser && !isDemo, f.addr, goos(), getenv, exec.LookPath),
		Retention: plans.Retention{MaxAge: f.retentionAge, MaxRevisions: f.retentionRevisions},
	})
	if err != nil {
		return err
	}
	addrGiven := false
	fs.Visit(func(fl *flag.Flag) { addrGiven = addrGiven || fl.Name == "addr" })
	ln, err := listen(f.addr, isDemo && !addrGiven)
	if err != nil {
		srv.Close()
		return err
	}
	ln, base := secure(ln, tlsCfg)
	base, elsewhere := publicBases(base, ln.Addr(), f.hosts)
	srv.Notifier.SetBaseURL(base) // kept when --public-url set it
	if _, want, _ := net.SplitHostPort(f.addr); want != "0" && !strings.HasSuffix(ln.Addr().String(), ":"+want) {
		fmt.Fprintf(stdout, "%s is taken: listening on a free port instead.\n", f.addr)
	}
	// `plandash url` and the other client commands read the address actually used from here.
	// It is a convenience: on a full disk the database may still serve every read (and writes
	// once there is room), so a server that cannot record it says so and serves.
	if err := recordAddr(f.data, base); err != nil {
		log.Warn("could not record the address for the client commands: give them --server "+base+" (or $PLANDASH_SERVER)", "err", err)
	} else {
		defer func() {
			if err := client.RemoveAddr(f.data, base); err != nil {
				log.Warn("could not remove the recorded address", "err", err)
			}
		}()
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		log.Warn("listening beyond loopback: anyone who can reach this address and has the token sees your agents' plans", "addr", ln.Addr().String())
	}
	where := f.data
	if f.db != "" {
		where += "; database: PostgreSQL" // not the URL: it may carry a password
	}
	fmt.Fprintf(stdout, "plandash %s on %s (data: %s)\n", name, base, where)
	if isTerminal(stdout) {
		fmt.Fprintf(stdout, "Open the dashboard: %s/?token=%s\n", base, url.QueryEscape(srv.Token))
	} else {
		// Not a person's terminal but a file or a log collector: the admin token stays out.
		fmt.Fprintf(stdout, "Open the dashboard: %s/ (run `%s` for the address with the token)\n", base, urlHint(getenv, isDemo, f.data))
	}
	if len(elsewhere) > 0 {
		fmt.Fprintf(stdout, "From other machines: %s\n", strings.Join(elsewhere, ", "))
	}
	if isDemo {
		fmt.Fprintln(stdout, "A scripted agent is streaming ACP traffic into it. Press Ctrl-C to stop.")
		// The agent's connections are its own, closed when it stops: a connection it opened but
		// never used would otherwise hold the server's graceful shutdown for its full timeout.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		opts := []client.Option{client.WithHTTPClient(&http.Client{Transport: tr})}
		if tlsCfg != nil {
			opts = append(opts, client.WithCA(f.tlsCert)) // a self-signed certificate is its own CA
		}
		agent := &demo.Agent{API: client.New(base, srv.Token, opts...), Dir: demoDir, PlansDir: f.plansDir}
		go func() {
			defer tr.CloseIdleConnections()
			if err := agent.Run(ctx); err != nil {
				log.Error("demo agent stopped", "err", err)
			}
		}()
	}
	go releaseMemory(ctx, srv.Live)
	err = srv.Serve(ctx, ln)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// recordAddr writes base to the data directory's address file.
func recordAddr(data, base string) error {
	if err := mkdir(data); err != nil {
		return err
	}
	return client.WriteAddr(data, base)
}

// originPatterns turns frame ancestors into the host patterns the socket accepts as origins.
func originPatterns(ancestors []string) []string {
	var out []string
	for _, a := range ancestors {
		if strings.HasPrefix(a, "'") {
			continue
		}
		if u, err := url.Parse(a); err == nil && u.Host != "" {
			out = append(out, u.Host)
		} else {
			out = append(out, a)
		}
	}
	return out
}

// discoverDirs is where each agent keeps its own session files, for discovery (none when it is
// off); Codex's are --codex-sessions.
func discoverDirs(on bool, codexSessions string, getenv func(string) string) map[string]string {
	dirs := map[string]string{}
	if !on {
		return dirs
	}
	for _, a := range registry.All() {
		if a.Sessions != nil {
			dirs[a.Name] = a.Sessions(getenv)
		}
	}
	dirs["codex"] = codexSessions
	return dirs
}

// discoveredTitles lists the agents whose own session files discovery reads: "Claude Code, Codex
// CLI, …".
func discoveredTitles() string {
	var titles []string
	for _, a := range registry.All() {
		if a.Sessions != nil {
			titles = append(titles, a.Title)
		}
	}
	return strings.Join(titles, ", ")
}

// codexSessions is --codex-sessions' default: where Codex CLI writes its rollout files
// ($CODEX_HOME/sessions, else ~/.codex/sessions). The demo follows none, so a developer's real
// sessions stay out of it.
func codexSessions(getenv func(string) string, isDemo bool) string {
	codex, ok := registry.Lookup("codex")
	if isDemo || !ok || codex.Sessions == nil {
		return ""
	}
	return codex.Sessions(getenv)
}
