package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/plans"
)

// Applier is what the Watcher uses of plans.Service.
type Applier interface {
	Apply(ctx context.Context, st *plans.Stream, items []plans.Item) (plans.Result, error)
}

// Gate is what the Watcher uses of approval.Gate.
type Gate interface {
	Submit(ctx context.Context, sub approval.Submission) (approval.Request, bool, error)
	Wait(ctx context.Context, id string, limit time.Duration) (approval.Request, error)
	Decide(ctx context.Context, id string, in approval.DecisionInput) (approval.Request, error)
	HandOver(ctx context.Context, id, by, note string) (approval.Request, error)
	Settle(ctx context.Context, id string, in approval.DecisionInput) (approval.Request, error)
}

// Options tunes a Watcher.
type Options struct {
	// Username and Password are sent as HTTP basic auth when Password is set: OpenCode asks
	// for it when started with OPENCODE_SERVER_PASSWORD (username "opencode" unless
	// OPENCODE_SERVER_USERNAME says otherwise). See AuthFromEnv.
	Username, Password string
	// Client makes the requests; a client without a timeout when nil (the stream is long-lived).
	Client *http.Client
	// Host names the machine in sessions; os.Hostname when empty.
	Host string
	// Questions holds plan_exit's question at the gate; Permissions holds permission requests.
	// A gate of nil holds neither.
	Questions, Permissions bool
	// Asker, with Questions, keeps every other question as a wait answered in plandash (and
	// replied to OpenCode); nil leaves them to OpenCode's own clients.
	Asker Asker
	// Deadline is how long a request waits at the gate; 12h when zero. When it passes nothing
	// is answered: OpenCode's own prompt stays open.
	Deadline time.Duration
	// PlanRoots are the only directories plan files may be read from: the server's allowed
	// roots and OpenCode's data directory (~/.local/share/opencode/plans, for projects without
	// git). The session's directory, which events report, is not one unless configured.
	PlanRoots []string
	// MinBackoff and MaxBackoff bound the wait before reconnecting; 500ms and 30s when zero.
	MinBackoff, MaxBackoff time.Duration
	// OnConnect, when set, is called each time the event stream is open (for logs, and for
	// tests that must not miss the first event).
	OnConnect func()
	// Log receives what went wrong; slog.Default when nil.
	Log *slog.Logger
}

// AuthFromEnv reads the basic-auth credentials OpenCode's server uses from its own variables.
func AuthFromEnv(getenv func(string) string) (username, password string) {
	username, password = getenv("OPENCODE_SERVER_USERNAME"), getenv("OPENCODE_SERVER_PASSWORD")
	if username == "" {
		username = "opencode"
	}
	return username, password
}

// TerminalDecider is who decisions are recorded under when OpenCode answered first (its TUI
// or another client).
const TerminalDecider = "opencode"

// maxSessions bounds the sessions remembered; forgetting costs one more announcement.
const maxSessions = 4096

// Watcher follows one OpenCode server's event stream. It is safe for concurrent use, but Run
// once at a time.
type Watcher struct {
	*core
	base string
	opts Options
}

// NewWatcher makes a Watcher of the OpenCode server at baseURL (e.g. http://127.0.0.1:4096).
// gate may be nil to record todos without holding anything.
func NewWatcher(baseURL string, apply Applier, gate Gate, opts Options) *Watcher {
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	if opts.Host == "" {
		opts.Host, _ = os.Hostname()
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(30*time.Second, opts.MinBackoff)
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	return &Watcher{core: newCore(nil, apply, gate, opts.Host, opts.Deadline, opts.PlanRoots, opts.Log),
		base: strings.TrimRight(baseURL, "/"), opts: opts}
}

// Run follows the stream until ctx ends, reconnecting with exponential backoff (reset once a
// connection delivered an event). It returns ctx's error.
func (w *Watcher) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait() // the gate waits end with ctx
	backoff := w.opts.MinBackoff
	for {
		got, err := w.stream(ctx, &wg)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if got {
			backoff = w.opts.MinBackoff
		}
		w.log.Warn("opencode: event stream ended; reconnecting", "server", w.base, "err", err, "in", backoff)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		backoff = min(backoff*2, w.opts.MaxBackoff)
	}
}

// stream reads one connection's events; got says whether any arrived.
func (w *Watcher) stream(ctx context.Context, wg *sync.WaitGroup) (got bool, err error) {
	req, err := w.request(ctx, http.MethodGet, "/event", nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := w.opts.Client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("GET /event: %s", resp.Status)
	}
	if w.opts.OnConnect != nil {
		w.opts.OnConnect()
	}
	err = ReadSSE(resp.Body, func(data []byte) {
		got = true
		ev, err := DecodeEvent(data)
		if err != nil {
			w.log.Warn("opencode: undecodable event", "err", err)
			return
		}
		w.handle(ctx, ev, wg)
	})
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return got, err
}

// handle acts on one event. Gate waits run in their own goroutines so the stream keeps
// flowing (a reply from the TUI must be seen while plandash waits).
func (w *Watcher) handle(ctx context.Context, ev Event, wg *sync.WaitGroup) {
	switch ev.Type {
	case EventSessionCreated, EventSessionUpdated:
		var p struct {
			Info SessionInfo `json:"info"`
		}
		if json.Unmarshal(ev.Properties, &p) == nil {
			w.remember(p.Info)
		}
	case EventTodoUpdated:
		var p TodoUpdated
		if json.Unmarshal(ev.Properties, &p) != nil || p.SessionID == "" {
			return
		}
		w.todos(ctx, p)
	case EventQuestionAsked:
		var q QuestionAsked
		if w.gate == nil || !w.opts.Questions || json.Unmarshal(ev.Properties, &q) != nil || q.ID == "" || q.SessionID == "" {
			return
		}
		if path, ok := PlanExit(q); ok {
			w.hold(ctx, wg, q.ID, func(ctx context.Context) { w.holdPlanExit(ctx, q, path) }) // OpenCode only: the Watcher is not used for forks
		} else if w.opts.Asker != nil {
			w.hold(ctx, wg, q.ID, func(ctx context.Context) { w.holdQuestion(ctx, q) })
		}
	case EventPermissionAsked:
		var p PermissionAsked
		if w.gate == nil || !w.opts.Permissions || json.Unmarshal(ev.Properties, &p) != nil || p.ID == "" || p.SessionID == "" {
			return
		}
		w.hold(ctx, wg, p.ID, func(ctx context.Context) { w.holdPermission(ctx, p) })
	case EventSessionIdle, EventSessionStatus:
		if w.opts.Asker != nil {
			w.noteInput(ctx, ev)
		}
	case EventQuestionReplied, EventQuestionRejected, EventPermissionReplied:
		var r Replied
		if json.Unmarshal(ev.Properties, &r) == nil {
			w.answered(r.RequestID, r.Outcome(ev.Type))
		}
	}
}

// hold runs fn for OpenCode request id with a context that ends when OpenCode reports the
// request answered.
func (w *Watcher) hold(ctx context.Context, wg *sync.WaitGroup, id string, fn func(context.Context)) {
	hctx, cancel, ok := w.register(ctx, id)
	if !ok {
		return
	}
	wg.Go(func() {
		defer cancel(nil)
		defer w.unregister(id)
		fn(hctx)
	})
}

// request builds a request to the server with basic auth when configured.
func (w *Watcher) request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, w.base+path, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if w.opts.Password != "" {
		user := w.opts.Username
		if user == "" {
			user = "opencode"
		}
		req.SetBasicAuth(user, w.opts.Password)
	}
	return req, nil
}

// post sends a JSON body and fails on any answer but 2xx.
func (w *Watcher) post(ctx context.Context, path string, body any) error {
	req, err := w.request(ctx, http.MethodPost, path, body)
	if err != nil {
		return err
	}
	resp, err := w.opts.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %s: %s", path, resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}
