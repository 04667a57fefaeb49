package app

import (
	"context"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/notify"
	"github.com/plandash/plandash/internal/waits"
)

// waitsSource is the one list of waits as notifications read it: the one place notify meets
// internal/waits.
type waitsSource struct{ w *waits.Service }

func (s waitsSource) Await(ctx context.Context, after uint64) (uint64, []notify.Wait, error) {
	l, err := s.w.Await(ctx, after, time.Minute)
	if err != nil {
		return after, nil, err
	}
	out := make([]notify.Wait, 0, len(l.Waits))
	for _, w := range l.Waits {
		if w.Answered == "" { // answered in the terminal: nobody is to be called for it
			out = append(out, toNotify(w))
		}
	}
	return l.Seq, out, nil
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
		// A plan's decision takes a comment (a rejection needs one: the agent reads it); a
		// question's text would be taken for the answer itself.
		ans.Text = "answered with a one-tap link from " + channel
	}
	_, outcome, err := a.w.Answer(ctx, id, ans)
	if err != nil {
		return "", err
	}
	return outcome + " from " + channel, nil
}
