package sqlite

import (
	"bytes"
	"slices"
	"sync"

	"github.com/plandash/plandash/internal/plans"
)

// current remembers the sessions and plans as they are in the file, as this process last
// wrote or read them, so a batch that changes them again does not read them back and decode
// their JSON (a third of a batch's work in the store when it updates ten plans of ten
// sessions); and, while they are small, the tool calls still running and each session's newest
// activity, which the next updates of a working agent merge into. It is used only inside a batch's transaction, which no other writer can change,
// and only while no other process has written the file since it was filled: PRAGMA
// data_version changes for every commit made by another connection, and only for those.
type current struct {
	mu       sync.Mutex
	version  int64 // the writer's data_version the entries are true for
	sessions map[string]plans.Session
	plans    map[plans.PlanKey]plans.Plan
	calls    map[plans.PlanKey]plans.ToolCall // running tool calls, by {session, call id}
	newest   map[string]plans.Activity        // each session's newest activity
}

// maxKept is the most bytes of JSON and text a cached tool call or activity may hold: the
// cache is for the small, busy rows; a big one is read back when it changes again.
const maxKept = 4 << 10

// maxCurrent bounds each map; when one is full it starts over, which costs a read per row.
const maxCurrent = 4096

// check forgets everything when another process has written the file (version changed).
func (c *current) check(version int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != c.version {
		c.version = version
		c.sessions, c.plans, c.calls, c.newest = nil, nil, nil, nil
	}
}

// forget empties the cache, after a commit that failed: what the file holds is not known.
func (c *current) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sessions, c.plans, c.calls, c.newest = nil, nil, nil, nil
}

func (c *current) session(id string) (plans.Session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sessions[id]
	return s, ok
}

func (c *current) plan(k plans.PlanKey) (plans.Plan, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.plans[k]
	return p, ok
}

func (c *current) putSession(s plans.Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sessions = put(c.sessions, s.ID, s)
}

func (c *current) putPlan(p plans.Plan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.plans = put(c.plans, p.Key(), p)
}

func (c *current) toolCall(k plans.PlanKey) (plans.ToolCall, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.calls[k]
	return t, ok
}

func (c *current) lastActivity(sessionID string) (plans.Activity, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.newest[sessionID]
	return a, ok
}

// putToolCall keeps t while it runs and is small; the caller holds c.mu.
func (c *current) putToolCall(t plans.ToolCall) {
	k := plans.PlanKey{SessionID: t.SessionID, PlanID: t.ID}
	size := len(t.Content) + len(t.Locations) + len(t.RawInput) + len(t.RawOutput) + len(t.Meta)
	if t.Status == "completed" || t.Status == "failed" || size > maxKept {
		delete(c.calls, k)
		return
	}
	// Its JSON may be a slice of a whole posted body: keep only its own bytes.
	t.Content, t.Locations, t.RawInput = bytes.Clone(t.Content), bytes.Clone(t.Locations), bytes.Clone(t.RawInput)
	t.RawOutput, t.Meta = bytes.Clone(t.RawOutput), bytes.Clone(t.Meta)
	c.calls = put(c.calls, k, t)
}

// putActivity keeps a, a session's newest activity, while it is small; the caller holds c.mu.
func (c *current) putActivity(a plans.Activity) {
	if len(a.Text)+len(a.Raw) > maxKept {
		delete(c.newest, a.SessionID)
		return
	}
	a.Raw = bytes.Clone(a.Raw)
	c.newest = put(c.newest, a.SessionID, a)
}

// ownPlan is p with its JSON copied: a plan's _meta, its entries' and a custom plan's object
// may be slices of a whole posted body, which the kept plan would otherwise hold on to.
func ownPlan(p plans.Plan) plans.Plan {
	p.Meta, p.Raw = bytes.Clone(p.Meta), bytes.Clone(p.Raw)
	if slices.ContainsFunc(p.Entries, func(e plans.Entry) bool { return e.Meta != nil }) {
		p.Entries = slices.Clone(p.Entries) // the batch's plan keeps its own
		for i := range p.Entries {
			p.Entries[i].Meta = bytes.Clone(p.Entries[i].Meta)
		}
	}
	return p
}

// committed records what a commit wrote.
func (c *current) committed(ch *plans.Changes) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range ch.Sessions {
		c.sessions = put(c.sessions, s.ID, *s)
	}
	for _, p := range ch.Plans {
		c.plans = put(c.plans, p.Key(), ownPlan(*p))
	}
	for _, t := range ch.ToolCalls {
		c.putToolCall(*t)
	}
	// A session's newest activity is the last of its in the commit (merged or new).
	for _, a := range ch.Activity {
		c.putActivity(*a)
	}
}

// put sets m[k] = v, starting m over when it is full.
func put[K comparable, V any](m map[K]V, k K, v V) map[K]V {
	if _, ok := m[k]; !ok && (m == nil || len(m) >= maxCurrent) {
		m = make(map[K]V)
	}
	m[k] = v
	return m
}
