// Package permissions is where `plandash acp --approvals=both|dashboard` meets the dashboard:
// the permission requests agents sent through a proxy, offered here so a person can answer them
// from the inbox. The first answer wins: the dashboard's, queued until the proxy that offered the
// request fetches it, or the IDE's, which the proxy reports. The requests live in a Store: in
// memory for one process (a proxy offers its open requests again when it reconnects after a
// restart), or in PostgreSQL for instances sharing a database.
package permissions

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/errs"
)

// Request is an agent's permission request that a proxy offered to the dashboard.
type Request struct {
	Stream    string          `json:"stream"`
	ID        json.RawMessage `json:"id"`
	SessionID string          `json:"sessionId"`
	Params    json.RawMessage `json:"params"`
	InIDE     bool            `json:"inIde"`
	Offered   time.Time       `json:"offered"`
	Answered  bool            `json:"answered,omitempty"` // on its way to the proxy
	// Set once the request ended: who ended it (ide, dashboard, agent, proxy) and how.
	ResolvedBy string                 `json:"resolvedBy,omitempty"`
	Outcome    *acp.PermissionOutcome `json:"outcome,omitempty"`
	Resolved   time.Time              `json:"resolved,omitzero"`
}

// Open reports whether an agent is still blocked on the request with nobody's answer on its way.
func (r Request) Open() bool { return r.ResolvedBy == "" && !r.Answered }

// Answer is the dashboard's answer to one request, as its proxy fetches it.
type Answer struct {
	ID      json.RawMessage `json:"id"`
	Outcome Outcome         `json:"outcome"`
	By      string          `json:"by,omitempty"`
}

// Outcome is ACP's permission outcome on the wire.
type Outcome struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
	Feedback string `json:"feedback,omitempty"` // what the person said with a rejection
}

// MaxStreamBytes bounds a stream's name: the proxy's are about 30 bytes.
const MaxStreamBytes = 256

// maxResolved is how many ended requests a store keeps to show who resolved them.
const maxResolved = 200

// Inbox holds the offered requests. Its zero value is not usable; call New or NewOn.
type Inbox struct {
	store    Store
	now      func() time.Time
	log      *slog.Logger
	onChange []func(latest string)

	mu   sync.Mutex
	wake map[string]chan struct{} // by stream: closed when an answer may be waiting
}

// New returns an empty inbox kept in memory: the choice for one process (SQLite), where a proxy
// offers its open requests again when it reconnects after a restart.
func New(now func() time.Time) *Inbox { return NewOn(NewMemory(), now, nil) }

// NewOn returns an inbox over store. Several instances over one database store (PostgreSQL)
// share the requests and their answers; each tells the others of its changes (Notify), so an
// answer given on one reaches the proxy long-polling another.
func NewOn(store Store, now func() time.Time, log *slog.Logger) *Inbox {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Inbox{store: store, now: now, log: log, wake: map[string]chan struct{}{}}
}

// OnChange adds fn to be called after every change, outside the inbox's lock, with the title of
// a newly offered request ("" for other changes). Add listeners before the inbox is used.
func (in *Inbox) OnChange(fn func(latest string)) { in.onChange = append(in.onChange, fn) }

// changed tells the listeners.
func (in *Inbox) changed(latest string) {
	for _, fn := range in.onChange {
		fn(latest)
	}
}

// readTimeout bounds the reads of List and OpenCount, whose callers (page renders) have no
// context to give; a database that does not answer by then shows an empty list, logged.
const readTimeout = 5 * time.Second

// List returns the offered requests, open ones first, oldest first.
func (in *Inbox) List() []Request {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	out, err := in.store.List(ctx)
	if err != nil {
		in.log.Error("permissions: list requests", "err", err)
		return nil
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i].ResolvedBy == "") != (out[j].ResolvedBy == "") {
			return out[i].ResolvedBy == ""
		}
		return out[i].Offered.Before(out[j].Offered)
	})
	return out
}

// OpenCount counts the requests an agent is still blocked on: they count in every page's pending
// badge like the gate's requests.
func (in *Inbox) OpenCount() int {
	n := 0
	for _, p := range in.List() {
		if p.Open() {
			n++
		}
	}
	return n
}

// Offer records a request a proxy offers (again, after a reconnect: its answer state is reset,
// so an answer lost on the way can be given again). owner is who offers it (see Claim): a stream
// used by another owner is Forbidden. The first offer of an id wins: offered again while it is
// open with other params or session, it is a Conflict and the inbox keeps what it showed. That
// is the safe choice over treating it as a new request: a person may be reading the first
// params when they are swapped, and an answer must apply to what they read. Once the request
// ended, nobody can answer it any more, so a new request reusing its id (an agent restarted
// under the same proxy counts ids from the start again) replaces it.
func (in *Inbox) Offer(owner string, r Request) error {
	if r.Stream == "" || len(r.ID) == 0 {
		return errs.Errorf(errs.Invalid, "stream and id are required")
	}
	if err := in.Claim(owner, r.Stream); err != nil {
		return err
	}
	r.ID, r.Params = compact(r.ID), compact(r.Params)
	r.Offered, r.Answered, r.ResolvedBy, r.Outcome, r.Resolved = in.now(), false, "", nil, time.Time{}
	err := in.store.Offer(context.Background(), r, func(old *Request) error {
		if old == nil || old.ResolvedBy != "" {
			return nil
		}
		if old.SessionID != r.SessionID || !bytes.Equal(compact(old.Params), r.Params) {
			return errs.Errorf(errs.Conflict, "permission request %s on stream %q was already offered with other params; "+
				"a request id is offered once", r.ID, r.Stream)
		}
		return nil
	})
	if err != nil {
		return err
	}
	in.changed(Title(r.Params))
	return nil
}

// Claim binds stream to owner when nobody used it yet, and reports a Forbidden error when
// another owner did: a stream's requests, their ends and their answers belong to the proxy
// (the token) that first used it. owner must name the credential itself, not only its name,
// so that a new token reusing a revoked one's name does not inherit its streams.
func (in *Inbox) Claim(owner, stream string) error {
	switch {
	case owner == "":
		return errs.Errorf(errs.Internal, "permissions: a stream used without an owner")
	case stream == "":
		return errs.Errorf(errs.Invalid, "stream is required")
	case len(stream) > MaxStreamBytes:
		// Bounded, as every name kept and echoed in messages is.
		return errs.Errorf(errs.Invalid, "stream is %d bytes, over the limit of %d", len(stream), MaxStreamBytes)
	}
	got, err := in.store.Claim(context.Background(), stream, owner, in.now())
	if err != nil {
		return err
	}
	if got != owner {
		return errs.Errorf(errs.Forbidden, "stream %q belongs to another token: a proxy stream is used only by the token that opened it", stream)
	}
	return nil
}

// Resolve records that a request ended, and who ended it; owner is who says so (see Claim).
func (in *Inbox) Resolve(owner, stream string, id json.RawMessage, by string, o *acp.PermissionOutcome) error {
	if err := in.Claim(owner, stream); err != nil {
		return err
	}
	if _, err := in.store.Resolve(context.Background(), stream, compact(id), by, o, in.now()); err != nil {
		in.log.Error("permissions: resolve a request", "stream", stream, "err", err)
		return err
	}
	in.changed("")
	return nil
}

// Answer queues the dashboard's answer for the proxy that offered the request. The first answer
// wins: a request already answered or ended is a conflict; an option the agent did not offer is
// invalid.
func (in *Inbox) Answer(stream string, id json.RawMessage, o acp.PermissionOutcome, by string) error {
	id = compact(id)
	err := in.store.Answer(context.Background(), stream, id, Answer{ID: id, Outcome: Outcome(o), By: by}, func(p *Request) error {
		switch {
		case p == nil:
			return errs.Errorf(errs.NotFound, "no permission request %s on stream %q", id, stream)
		case p.ResolvedBy != "":
			return errs.Errorf(errs.Conflict, "the request was already resolved by the %s", p.ResolvedBy)
		case p.Answered:
			return errs.Errorf(errs.Conflict, "the request was already answered")
		}
		return checkOffered(p.Params, o)
	})
	if err != nil {
		return err
	}
	in.Notify(stream)
	return nil
}

// Notify wakes the proxy long-polling stream here and tells the listener: another instance
// sharing the store changed the stream's requests (or this one answered one).
func (in *Inbox) Notify(stream string) {
	in.mu.Lock()
	if ch := in.wake[stream]; ch != nil {
		close(ch)
		delete(in.wake, stream)
	}
	in.mu.Unlock()
	in.changed("")
}

// Answers is a proxy's long poll: the answers queued for its stream, as soon as there are any,
// or none once wait has passed or ctx ended. owner is who polls (see Claim): another owner's
// stream is Forbidden, so nobody takes the answers meant for someone else's agent.
func (in *Inbox) Answers(ctx context.Context, owner, stream string, wait time.Duration) ([]Answer, error) {
	if err := in.Claim(owner, stream); err != nil {
		return nil, err
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		// Registered before taking, so an answer queued in between wakes this poll.
		in.mu.Lock()
		ch := in.wake[stream]
		if ch == nil {
			ch = make(chan struct{})
			in.wake[stream] = ch
		}
		in.mu.Unlock()
		got, err := in.store.Take(ctx, stream)
		if err != nil && ctx.Err() == nil {
			in.log.Error("permissions: take answers", "stream", stream, "err", err)
		}
		if len(got) > 0 {
			return got, nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return []Answer{}, nil
		case <-ctx.Done():
			return []Answer{}, nil
		}
	}
}

func checkOffered(params json.RawMessage, o acp.PermissionOutcome) error {
	switch o.Outcome {
	case "cancelled":
		return nil
	case "selected":
		p, err := acp.DecodeRequestPermissionParams(params)
		if err != nil {
			return errs.Errorf(errs.Invalid, "the request cannot be answered: %v", err)
		}
		for _, opt := range p.Options {
			if opt.OptionID == o.OptionID {
				return nil
			}
		}
		return errs.Errorf(errs.Invalid, "option %q was not offered", o.OptionID)
	}
	return errs.Errorf(errs.Invalid, `outcome must be "selected" or "cancelled", not %q`, o.Outcome)
}

// Rejects reports whether option is one of the open or answered request's reject options (its
// kind starts with "reject"): only a rejection carries the person's feedback to the agent.
func (in *Inbox) Rejects(stream string, id json.RawMessage, option string) bool {
	for _, p := range in.List() {
		if p.Stream != stream || string(p.ID) != string(id) {
			continue
		}
		req, err := acp.DecodeRequestPermissionParams(p.Params)
		if err != nil {
			return false
		}
		for _, o := range req.Options {
			if o.OptionID == option {
				return strings.HasPrefix(o.Kind, "reject")
			}
		}
	}
	return false
}

// Title names a permission request for a notification: its tool call's title.
func Title(params json.RawMessage) string {
	p, err := acp.DecodeRequestPermissionParams(params)
	if err != nil || p.ToolCall.Title == nil {
		return "An agent asks for permission"
	}
	return *p.ToolCall.Title
}

// compact is the canonical form of a JSON-RPC id, so "1" and " 1 " name the same request.
func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}
