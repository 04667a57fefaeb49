package approval

import "context"

// Notify tells the gate that another instance sharing its store created or decided request id.
// It reads the request back, wakes the waiters a decision was made for, and tells listeners
// (as a Remote change), so a long-poll here ends when a person decides there.
func (g *Gate) Notify(ctx context.Context, id string) error {
	r, err := g.store.Get(ctx, id)
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq = max(g.seq, r.Seq)
	g.changed(ctx, Change{Request: &r, Remote: true})
	if !r.Decided() {
		g.deadlineAt(r.Deadline)
	}
	return nil
}

// NotifyRule tells the gate that another instance added or revoked rule id, for listeners.
func (g *Gate) NotifyRule(ctx context.Context, id string) error {
	r, err := g.store.Rule(ctx, id)
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seq = max(g.seq, r.Seq)
	g.changed(ctx, Change{Rule: &r, Remote: true})
	return nil
}
