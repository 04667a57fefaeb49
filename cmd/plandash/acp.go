package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/plandash/plandash/internal/acpproxy"
	"github.com/plandash/plandash/internal/app"
	"github.com/plandash/plandash/internal/client"
	"github.com/plandash/plandash/internal/web"
)

// acpCmd runs an agent behind the transparent ACP proxy, feeding the dashboard on the side.
// Nothing about the dashboard (down, slow, no token) stops the agent from starting or the IDE
// from talking to it; problems are logged to stderr, which IDEs show as the agent's log.
func acpCmd(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plandash acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: plandash acp [flags] -- AGENT [ARGS…]\n\nRuns AGENT behind a transparent ACP proxy that feeds the dashboard.\n\n")
		fs.PrintDefaults()
	}
	var f client.Flags
	f.Register(fs)
	serve := fs.Bool("serve", false, "start an embedded dashboard server in this process when none answers at --server")
	// No default shown from the environment: the URL may carry a password, and -h prints defaults.
	db := fs.String("db", "", "with --serve: the embedded server keeps its data in PostgreSQL at this postgres:// URL, as plandash serve --db does (default $PLANDASH_DB; none keeps SQLite in --data)")
	record := fs.String("record", "", "also write the transcript to this file (NDJSON envelopes; replay with plandash ingest)")
	planUpdates := fs.Bool("plan-updates", false, "advertise the plan capability to the agent for an IDE without it, and translate plan updates back to v1 plans for that IDE")
	approvals := fs.String("approvals", "ide", "who answers permission requests: ide, both (first answer wins) or dashboard")
	stream := fs.String("stream", "", "the dashboard's name for this connection (default: one per run)")
	agentName := fs.String("agent", "", "agent name until the agent's initialize names it (default: the command's name)")
	flush := fs.Duration("flush", 3*time.Second, "how long to keep delivering to the dashboard once the agent's output has ended")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "plandash acp: name the agent to run: plandash acp -- AGENT [ARGS…]")
		return errUsage
	}
	mode, err := acpproxy.ParseApprovals(*approvals)
	if err != nil {
		fmt.Fprintln(stderr, "plandash acp:", err)
		return errUsage
	}
	if *db == "" {
		*db = getenv("PLANDASH_DB")
	}
	target := client.Resolve(getenv, f)
	api := target.Client()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})).With("from", "plandash acp")
	if *stream == "" {
		*stream = fmt.Sprintf("acp-%d-%d", os.Getpid(), time.Now().UnixNano())
	}
	if *agentName == "" {
		*agentName = filepath.Base(fs.Arg(0))
	}

	// The dashboard side lives on after a signal: it must still take the agent's last frames.
	base := context.WithoutCancel(ctx)
	srvCtx, stopServer := context.WithCancel(base)
	defer stopServer()
	if *serve {
		// The embedded server is shut down, and its database closed, before the command returns:
		// nothing it runs logs or writes after that.
		supervised := make(chan struct{})
		go func() {
			defer close(supervised)
			superviseServer(srvCtx, api, target, *db, log)
		}()
		defer func() {
			stopServer()
			<-supervised
		}()
	}

	var rec *acpproxy.Recorder
	if *record != "" {
		fh, err := os.Create(*record)
		if err != nil {
			return fmt.Errorf("--record: %w", err)
		}
		rec = acpproxy.NewRecorder(fh)
	}
	tap := acpproxy.NewTap(acpproxy.TapOptions{Record: rec})
	// Frames still queued when the agent exits get up to --flush to reach a dashboard that is
	// down: an instance restarting behind a balancer is back within that (an exit with nothing
	// queued does not wait at all).
	sink := &acpproxy.Sink{API: api, Stream: *stream, Agent: *agentName, Log: log}
	sinkCtx, stopSink := context.WithCancel(base)
	defer stopSink()
	sinkDone := make(chan error, 1)
	go func() { sinkDone <- sink.Run(sinkCtx, tap) }()

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	// Asking for SIGPIPE turns a write to a closed stdout into an error the proxy handles (it
	// ends the agent) instead of a silent death that would orphan it.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)

	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Stderr = stderr
	p := &acpproxy.Proxy{ClientIn: pollableStdin(stdin), ClientOut: stdout, Tap: tap, PlanUpdates: *planUpdates, Approvals: mode, Log: log}
	if mode != acpproxy.ApprovalsIDE {
		broker := &acpproxy.RemoteBroker{API: api, Stream: *stream, Log: log}
		go broker.Run(sinkCtx)
		p.Broker = broker
	}
	// Delivery goes on for up to --flush once the agent's output has ended: the tap may still be
	// feeding a dashboard that keeps up, or retrying one that is down.
	var flushOnce sync.Once
	var flushTimer *time.Timer
	var late atomic.Bool
	startFlush := func() {
		flushOnce.Do(func() {
			flushTimer = time.AfterFunc(*flush, func() {
				late.Store(true)
				stopSink()
			})
		})
	}
	p.OnAgentDone = startFlush
	code, runErr := (&acpproxy.Agent{Cmd: cmd, Signals: sigs}).Run(p)

	startFlush()
	tap.Close()
	<-sinkDone
	flushTimer.Stop()
	st := tap.Stats()
	if late.Load() && st.Queued > 0 {
		log.Warn("the dashboard did not take the last frames in time", "frames", st.Queued)
	}
	if st.Dropped > 0 || st.Lost > 0 {
		log.Warn("the dashboard missed part of the traffic: it was down or far behind", "frames_dropped", st.Dropped, "times_untapped", st.Lost)
	}
	if rec != nil {
		if err := rec.Close(); err != nil {
			log.Error("recording failed", "file", *record, "err", err)
		}
	}
	if runErr != nil {
		if code == 127 {
			fmt.Fprintf(stderr, "plandash acp: %v\n", runErr)
			return exitCode(127)
		}
		log.Error("proxy", "err", runErr)
	}
	if code != 0 {
		return exitCode(code)
	}
	return nil
}

// superviseServer runs an embedded server whenever none answers at the target: at start, and
// again if the server this proxy relied on (another proxy's) goes away. Only one process can
// listen on the address, so concurrent proxies take turns rather than fight.
func superviseServer(ctx context.Context, api *client.Client, target client.Target, db string, log *slog.Logger) {
	u, err := url.Parse(target.Server)
	if err != nil || u.Host == "" {
		log.Error("--serve: cannot serve at --server", "server", target.Server)
		return
	}
	// One quick look each time: the loop is the retry.
	probe := api.With(client.WithRetry(client.Retry{}), client.WithTimeout(500*time.Millisecond))
	for {
		if _, err := probe.Health(ctx); err != nil {
			if done := serveEmbedded(ctx, u.Host, target, db, log); done != nil {
				<-done
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
}

// serveEmbedded serves the dashboard at addr until ctx ends; the returned channel closes then.
// It returns nil when it could not start (someone else got the address first). The server takes
// the token the proxy was given (--token, $PLANDASH_TOKEN), so that the proxy's own posts are let
// in; without one it loads or creates the token in the data directory, which the proxy reads.
// With db (a postgres:// URL) it runs on that database, as `plandash serve --db` would, so the
// embedded server shows and adds to what the team's instances share instead of a private SQLite
// file.
func serveEmbedded(ctx context.Context, addr string, target client.Target, db string, log *slog.Logger) <-chan struct{} {
	data := target.DataDir
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil
	}
	if err := mkdir(data); err != nil {
		ln.Close()
		log.Error("--serve", "err", err)
		return nil
	}
	srv, err := app.Open(ctx, app.Config{Config: web.Config{Log: log}, DataDir: data, DB: db, Token: target.Token, Version: version})
	if err != nil {
		ln.Close()
		log.Error("--serve: cannot open the dashboard", "err", err)
		return nil
	}
	log.Warn("serving the dashboard in this process; it stops when this agent does", "url", "http://"+ln.Addr().String())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ctx, ln); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, http.ErrServerClosed) {
			log.Error("embedded dashboard stopped", "err", err)
		}
	}()
	return done
}
