// Package permissions is where `plandash acp --approvals=both|dashboard` meets the dashboard:
// the permission requests agents sent through a proxy, offered here so a person can answer them
// from the inbox. The first answer wins: the dashboard's, queued until the proxy that offered the
// request fetches it, or the IDE's, which the proxy reports. The inbox is in memory: a proxy
// offers its open requests again when it reconnects after a restart.
package permissions

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
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
}

// maxResolved is how many ended requests are kept to show who resolved them.
const maxResolved = 200

type key struct{ stream, id string }

// Inbox holds the offered requests. Its zero value is not usable; call New.
type Inbox struct {
	now      func() time.Time
	onChange func(latest string)

	mu       sync.Mutex
	reqs     map[key]*Request
	answers  map[string][]Answer      // by stream, not yet fetched
	wake     map[string]chan struct{} // by stream: closed when an answer is queued
	resolved []key                    // oldest first, bounded
}

// New returns an empty inbox.
func New(now func() time.Time) *Inbox {
	if now == nil {
		now = time.Now
	}
	return &Inbox{now: now, onChange: func(string) {}, reqs: map[key]*Request{}, answers: map[string][]Answer{}, wake: map[string]chan struct{}{}}
}

// OnChange sets fn to be called after every change, outside the inbox's lock, with the title of
// a newly offered request ("" for other changes). Set it before the inbox is used.
func (in *Inbox) OnChange(fn func(latest string)) { in.onChange = fn }

// List returns the offered requests, open ones first, oldest first.
func (in *Inbox) List() []Request {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]Request, 0, len(in.reqs))
	for _, p := range in.reqs {
		out = append(out, *p)
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
	in.mu.Lock()
	defer in.mu.Unlock()
	n := 0
	for _, p := range in.reqs {
		if p.Open() {
			n++
		}
	}
	return n
}

// Offer records a request a proxy offers (again, after a reconnect: its answer state is reset,
// so an answer lost on the way can be given again).
func (in *Inbox) Offer(r Request) error {
	if r.Stream == "" || len(r.ID) == 0 {
		return errs.Errorf(errs.Invalid, "stream and id are required")
	}
	r.ID = compact(r.ID)
	r.Offered, r.Answered, r.ResolvedBy, r.Outcome = in.now(), false, "", nil
	in.mu.Lock()
	in.reqs[key{r.Stream, string(r.ID)}] = &r
	in.mu.Unlock()
	in.onChange(Title(r.Params))
	return nil
}

// Resolve records that a request ended, and who ended it.
func (in *Inbox) Resolve(stream string, id json.RawMessage, by string, o *acp.PermissionOutcome) {
	k := key{stream, string(compact(id))}
	in.mu.Lock()
	if p := in.reqs[k]; p != nil && p.ResolvedBy == "" {
		p.ResolvedBy, p.Outcome, p.Resolved, p.Answered = by, o, in.now(), false
		in.resolved = append(in.resolved, k)
		for len(in.resolved) > maxResolved {
			delete(in.reqs, in.resolved[0])
			in.resolved = in.resolved[1:]
		}
	}
	in.mu.Unlock()
	in.onChange("")
}

// Answer queues the dashboard's answer for the proxy that offered the request. The first answer
// wins: a request already answered or ended is a conflict; an option the agent did not offer is
// invalid.
func (in *Inbox) Answer(stream string, id json.RawMessage, o acp.PermissionOutcome, by string) error {
	if err := in.answer(stream, id, o, by); err != nil {
		return err
	}
	in.onChange("")
	return nil
}

func (in *Inbox) answer(stream string, id json.RawMessage, o acp.PermissionOutcome, by string) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	p := in.reqs[key{stream, string(compact(id))}]
	switch {
	case p == nil:
		return errs.Errorf(errs.NotFound, "no permission request %s on stream %q", id, stream)
	case p.ResolvedBy != "":
		return errs.Errorf(errs.Conflict, "the request was already resolved by the %s", p.ResolvedBy)
	case p.Answered:
		return errs.Errorf(errs.Conflict, "the request was already answered")
	}
	if err := checkOffered(p.Params, o); err != nil {
		return err
	}
	p.Answered = true
	in.answers[stream] = append(in.answers[stream], Answer{ID: p.ID, Outcome: Outcome(o), By: by})
	if ch := in.wake[stream]; ch != nil {
		close(ch)
		delete(in.wake, stream)
	}
	return nil
}

// Answers is a proxy's long poll: the answers queued for its stream, as soon as there are any,
// or none once wait has passed or ctx ended.
func (in *Inbox) Answers(ctx context.Context, stream string, wait time.Duration) []Answer {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		in.mu.Lock()
		if got := in.answers[stream]; len(got) > 0 {
			delete(in.answers, stream)
			in.mu.Unlock()
			return got
		}
		ch := in.wake[stream]
		if ch == nil {
			ch = make(chan struct{})
			in.wake[stream] = ch
		}
		in.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			return []Answer{}
		case <-ctx.Done():
			return []Answer{}
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
