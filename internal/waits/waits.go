// Package waits is the one list of everything an agent waits on a person for: plans at the gate,
// relayed ACP permission requests, agents' questions, and sessions waiting for the next prompt.
// Pages (the "Needs you" strip, the inbox, the title's count), the API, notifications and the
// IDE extension all read this one list, so they never disagree. The list has a sequence number
// that moves whenever any wait begins, changes or ends, on every instance sharing a database,
// so a client long-polls it (Await) instead of polling each source.
package waits

import (
	"time"
	"unicode/utf8"
)

// Kind is what an agent waits for.
type Kind string

// Kinds of wait.
const (
	KindPlan       Kind = "plan"       // a plan at the gate
	KindPermission Kind = "permission" // an ACP permission request relayed by `plandash acp`
	KindQuestion   Kind = "question"   // an agent asked the person a question
	KindInput      Kind = "input"      // the agent ended its turn and waits for the next prompt
)

// Kinds lists every kind, in the order lists group them.
var Kinds = [...]Kind{KindPlan, KindPermission, KindQuestion, KindInput}

// Action is a one-tap answer to a wait.
type Action struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Wait is one thing an agent waits on a person for, as every surface shows it (docs/api-waits.md
// is its contract).
type Wait struct {
	// ID is opaque and URL-path-safe, stable for the wait's life: plan-<approval id>,
	// perm-<hash>, q-<id>, input-<id>.
	ID    string `json:"id"`
	Kind  Kind   `json:"kind"`
	Title string `json:"title"`
	// Detail is the whole plan or question as plain text when it is at most MaxDetail bytes,
	// else "". Fits says it is the whole thing, so a notification may carry one-tap actions.
	Detail     string    `json:"detail"`
	Fits       bool      `json:"fits"`
	SessionID  string    `json:"sessionId"`
	Agent      string    `json:"agent"`     // the canonical agent id: claude-code
	AgentName  string    `json:"agentName"` // its display name: Claude Code
	Machine    string    `json:"machine"`
	Cwd        string    `json:"cwd"`
	Since      time.Time `json:"since"`
	Deadline   time.Time `json:"deadline,omitzero"`
	Then       string    `json:"then,omitempty"` // what happens at the deadline, in words
	Answerable bool      `json:"answerable"`     // false: only the terminal can answer it
	// Answered, when set, says the person answered where the agent asked and what they
	// answered is not known yet ("answered in the terminal — outcome not known yet"): nobody
	// waits on a person any more; the wait ends once the agent's next event shows the outcome.
	Answered string   `json:"answered,omitempty"`
	URL      string   `json:"url"`     // the path of the page that answers it
	Actions  []Action `json:"actions"` // [] unless Fits and Answerable
}

// List is the waits at one moment: Seq is the list's sequence number then.
type List struct {
	Seq   uint64 `json:"seq"`
	Waits []Wait `json:"waits"`
}

// Waiting counts the waits that wait on a person: all but those Answered.
func (l List) Waiting() int {
	n := 0
	for _, w := range l.Waits {
		if w.Answered == "" {
			n++
		}
	}
	return n
}

// MaxDetail bounds a wait's Detail: a longer plan or question is shown on its page only.
const MaxDetail = 4 << 10

// MaxTitle bounds a wait's Title, in runes: it is one line.
const MaxTitle = 200

// fitDetail is text as a Detail: the text and true when it fits, else "" and false.
func fitDetail(text string) (string, bool) {
	if len(text) > MaxDetail || !utf8.ValidString(text) {
		return "", false
	}
	return text, true
}

// line cuts s to one line of at most MaxTitle runes.
func line(s string) string {
	out := make([]rune, 0, min(len(s), MaxTitle))
	for _, r := range s {
		if r == '\n' || r == '\r' {
			r = ' '
		}
		if len(out) == MaxTitle {
			out[MaxTitle-1] = '…'
			break
		}
		out = append(out, r)
	}
	return string(out)
}

// MaxActions bounds a wait's one-tap actions: an agent may offer more options than a
// notification can carry; the page shows them all.
const MaxActions = 12

// MaxList bounds the list: the oldest MaxList waits. A person facing more has the inbox.
const MaxList = 1000

// finish fills what every wait needs: actions only when they can be taken here and the whole
// thing was shown, never nil so the JSON says []; everything bounded.
func finish(w Wait) Wait {
	w.Title = line(w.Title)
	if !w.Fits || !w.Answerable || w.Actions == nil {
		w.Actions = []Action{}
	}
	w.Actions = w.Actions[:min(len(w.Actions), MaxActions)]
	for i := range w.Actions {
		w.Actions[i].Label = line(w.Actions[i].Label)
	}
	return w
}
