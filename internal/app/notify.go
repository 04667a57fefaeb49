package app

import (
	"context"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/waits"
)

// waitsSource is the one list of waits as notifications read it: the one place notify meets
// internal/waits. One goroutine at a time (the notifier's watcher) calls Await.
type waitsSource struct {
	w    *waits.Service
	gate *approval.Gate // says how a plan's wait ended; nil says nothing
	took time.Duration  // how long the last read of a list already changed took
	// returned is when the last list was returned (its handling began); streak counts the
	// reads in a row that found the list changed during the handling of the one before.
	returned time.Time
	streak   int
}

// How long the notifier rests in a burst: three times its last read and handling, at least
// minRest and at most a quarter of a second (the notification of a wait that began in a burst
// is that much later; one that begins alone is not).
const (
	restFactor = 3
	minRest    = 25 * time.Millisecond
	maxRest    = 250 * time.Millisecond
)

// Outcome says how a plan's wait ended: its decision and who made it, or that its deadline
// passed. Other waits say nothing (their end is the answer itself).
func (s *waitsSource) Outcome(ctx context.Context, id string) string {
	reqID, ok := strings.CutPrefix(id, "plan-")
	if !ok || s.gate == nil {
		return ""
	}
	r, err := s.gate.Get(ctx, reqID)
	switch {
	case err != nil || !r.Decided():
		return ""
	case r.Decision == nil: // handed over to the agent's own dialog: its outcome is not known
		if r.Handover != nil {
			return r.Handover.Note
		}
		return r.Status.Words()
	}
	out := r.Status.Words()
	switch {
	case r.Decision.Expired:
		out += " when its deadline passed"
	case r.Decision.Rule != "":
		out += " by a rule"
	case r.Decision.By != "":
		out += " by " + r.Decision.By
	}
	return out
}

// Await returns what changed in the list past after: the waits that changed, each read alone
// (One), when the list can tell which; else the whole list. A wait that begins costs the
// notifier that one wait, not every pending request decoded and sorted. In a burst of changes
// (a thousand waits in a second) each read and each announcement of what changed is work taken
// from ingest and the gate: once the list has changed during two handlings in a row, resting
// restFactor times as long as the last read and its handling took keeps the notifier to about
// a quarter of one core, and lets each read take up more of the burst, so the outbox commits
// fewer, larger batches and chat targets get fewer, coalesced messages. A change after a quiet
// spell, or the first during one handling, is read at once: a single wait's notification
// never waits for this.
func (s *waitsSource) Await(ctx context.Context, after uint64) (notify.Update, error) {
	changed := s.w.Seq() > after // during the handling of the last list
	if !changed {
		s.streak = 0
	} else if s.streak++; s.streak > 1 {
		busy := s.took + time.Since(s.returned)
		t := time.NewTimer(min(max(restFactor*busy, minRest), maxRest))
		select {
		case <-ctx.Done():
			t.Stop()
			return notify.Update{Seq: after}, ctx.Err()
		case <-t.C:
		}
	}
	start := time.Now()
	seq, ids, ok, err := s.w.Changed(ctx, after, time.Minute)
	if err != nil {
		return notify.Update{Seq: after}, err
	}
	var u notify.Update
	if ok {
		u, err = s.changes(ctx, seq, ids)
	} else {
		u, err = s.whole(ctx)
	}
	if err != nil {
		return notify.Update{Seq: after}, err
	}
	s.took = 0
	if changed {
		s.took = time.Since(start) // a read that did not wait for a change
	}
	s.returned = time.Now()
	return u, nil
}

// changes reads the waits ids as they are now: open ones, and the ids of those that are not.
func (s *waitsSource) changes(ctx context.Context, seq uint64, ids []string) (notify.Update, error) {
	u := notify.Update{Seq: seq}
	for _, id := range ids {
		w, open, err := s.w.One(ctx, id)
		if err != nil {
			return u, err
		}
		if open && w.Answered == "" { // answered in the terminal: nobody is to be called for it
			u.Open = append(u.Open, toNotify(w))
		} else {
			u.Gone = append(u.Gone, id)
		}
	}
	return u, nil
}

// whole reads the whole list, unbounded: the waits past the list's MaxList are announced too.
func (s *waitsSource) whole(ctx context.Context) (notify.Update, error) {
	l, err := s.w.All(ctx)
	if err != nil {
		return notify.Update{}, err
	}
	u := notify.Update{Seq: l.Seq, Whole: true, Open: make([]notify.Wait, 0, len(l.Waits))}
	for _, w := range l.Waits {
		if w.Answered == "" {
			u.Open = append(u.Open, toNotify(w))
		}
	}
	return u, nil
}

func toNotify(w waits.Wait) notify.Wait {
	acts := make([]notify.Action, 0, len(w.Actions))
	for _, a := range w.Actions {
		acts = append(acts, notify.Action{ID: a.ID, Label: a.Label})
	}
	return notify.Wait{ID: w.ID, Kind: string(w.Kind), Title: w.Title, Detail: w.Detail, Fits: w.Fits,
		SessionID: w.SessionID, Agent: w.Agent, AgentName: w.AgentName, Machine: w.Machine, Cwd: w.Cwd,
		Since: w.Since, Deadline: w.Deadline, Then: w.Then, Answerable: w.Answerable, URL: w.URL, Actions: acts}
}

// waitsAnswerer answers a wait from a capability link. The decision is recorded under the
// server's user with the channel ("ann from ntfy"), so the audit says where it came from.
type waitsAnswerer struct {
	w    *waits.Service
	user string
}

func (a waitsAnswerer) Answer(ctx context.Context, id, action, channel string) (string, error) {
	user := a.user
	if user == "" {
		user = "local user"
	}
	ans := waits.Answer{Action: action, By: user + " from " + channel}
	if strings.HasPrefix(id, "plan-") {
		// A plan's decision takes a comment (a rejection needs one: the agent reads it as
		// the reason); a question's text would be taken for the answer itself.
		ans.Text = oneTapReason(action, channel)
	}
	_, outcome, err := a.w.Answer(ctx, id, ans)
	if err != nil {
		return "", err
	}
	return outcome + " from " + channel, nil
}

// oneTapReason is the comment a one-tap answer leaves on a plan's decision, written for the
// agent that reads it: a button carries no reason, so it says so and what to do instead.
// It names only the channel: never the link, a token or a target's address.
func oneTapReason(action, channel string) string {
	switch action {
	case "reject":
		return "Rejected from " + channel + " by the person, with one tap: no reason was given. " +
			"Do not carry out this plan; ask what to change, or propose another."
	case "approve":
		return "Approved from " + channel + " by the person, with one tap."
	}
	return "Answered from " + channel + " by the person, with one tap."
}
