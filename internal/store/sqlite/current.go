package sqlite

import (
	"sync"

	"github.com/plandash/plandash/internal/plans"
)

// current remembers the sessions and plans as they are in the file, as this process last
// wrote or read them, so a batch that changes them again does not read them back and decode
// their JSON (a third of a batch's work in the store when it updates ten plans of ten
// sessions). It is used only inside a batch's transaction, which no other writer can change,
// and only while no other process has written the file since it was filled: PRAGMA
// data_version changes for every commit made by another connection, and only for those.
type current struct {
	mu       sync.Mutex
	version  int64 // the writer's data_version the entries are true for
	sessions map[string]plans.Session
	plans    map[plans.PlanKey]plans.Plan
}

// maxCurrent bounds each map; when one is full it starts over, which costs a read per row.
const maxCurrent = 4096

// check forgets everything when another process has written the file (version changed).
func (c *current) check(version int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != c.version {
		c.version, c.sessions, c.plans = version, nil, nil
	}
}

// forget empties the cache, after a commit that failed: what the file holds is not known.
func (c *current) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sessions, c.plans = nil, nil
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

// committed records what a commit wrote.
func (c *current) committed(ch *plans.Changes) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range ch.Sessions {
		c.sessions = put(c.sessions, s.ID, *s)
	}
	for _, p := range ch.Plans {
		c.plans = put(c.plans, p.Key(), *p)
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
