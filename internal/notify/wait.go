// Package notify carries waits to people who are not looking at a plandash tab: Web Push,
// ntfy, Slack, Discord and signed JSON webhooks. What is due is stored in a durable outbox
// before it is sent, one instance sends each delivery (a lease on the row), failures retry
// with backoff for a bounded time, and the buttons in a message are single-use capability
// links for one wait and one action.
package notify

import (
	"context"
	"time"
)

// Wait is one thing an agent waits on a person for, as notifications need it. It mirrors the
// fields of the waits contract (GET /api/v1/waits) that a message shows.
type Wait struct {
	ID         string    `json:"id"`
	Kind       string    `json:"kind"` // plan, permission, question, input
	Title      string    `json:"title"`
	Detail     string    `json:"detail,omitempty"`
	Fits       bool      `json:"fits"`
	SessionID  string    `json:"sessionId,omitempty"`
	Agent      string    `json:"agent,omitempty"`
	AgentName  string    `json:"agentName,omitempty"`
	Machine    string    `json:"machine,omitempty"`
	Cwd        string    `json:"cwd,omitempty"`
	Since      time.Time `json:"since"`
	Deadline   time.Time `json:"deadline,omitzero"`
	Then       string    `json:"then,omitempty"`
	Answerable bool      `json:"answerable"`
	URL        string    `json:"url"` // path of the page that answers it
	Actions    []Action  `json:"actions"`
	// Outcome says how it ended ("approved by ann from ntfy"), on an end, when the list knows.
	Outcome string `json:"outcome,omitempty"`
}

// Action is one answer a notification may offer as a button.
type Action struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Who names the agent that waits, for a message's first words.
func (w Wait) Who() string {
	switch {
	case w.AgentName != "":
		return w.AgentName
	case w.Agent != "":
		return w.Agent
	}
	return "An agent"
}

// OneTap reports whether a message may carry answer buttons: only when the whole plan or
// question is in it (nobody approves a plan they could not read) and it can be answered here.
func (w Wait) OneTap() bool { return w.Fits && w.Answerable && len(w.Actions) > 0 }

// Source is the one list of waits. Await returns, once the list's sequence number is past
// after (or when ctx ends, then with ctx's error), what changed: the whole list, or only the
// waits that changed when the source can tell which (a wait that began alone is then read
// alone, not with every other). After 0 it returns the whole list.
type Source interface {
	Await(ctx context.Context, after uint64) (Update, error)
}

// Update is what a Source says changed in the list of waits.
type Update struct {
	Seq   uint64
	Whole bool     // Open is the whole list: a wait not in it is not open
	Open  []Wait   // the open waits: all of them, or (not Whole) those that changed
	Gone  []string // not Whole: the ids of the waits that changed and are no longer open
}

// Outcomes is a Source that can say, in a few words, how a wait that ended was answered
// ("approved by ann from ntfy"); "" when it cannot tell. Ends then say it.
type Outcomes interface {
	Outcome(ctx context.Context, waitID string) string
}

// Answerer answers a wait with one of its actions. channel says where the answer came from
// ("ntfy", "Slack", "Web Push"), for the record and the audit. A wait that already ended is a
// conflict (errs.Conflict) whose message says what happened.
type Answerer interface {
	Answer(ctx context.Context, waitID, action, channel string) (outcome string, err error)
}
