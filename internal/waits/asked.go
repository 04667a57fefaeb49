package waits

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// Asker is the part of Asked an agent's adapter uses to keep its questions and the sessions
// waiting for their next prompt: begin a wait, read it, wait for its answer, close it, list the
// open ones.
type Asker interface {
	Begin(ctx context.Context, r Record) error
	Get(ctx context.Context, id string) (Record, error)
	Wait(ctx context.Context, id string, limit time.Duration) (Record, error)
	Close(ctx context.Context, id, by, outcome string) (bool, error)
	Open(ctx context.Context) ([]Record, error)
	Now() time.Time
}

var _ Asker = (*Asked)(nil)

// Record is a wait that plandash itself keeps: an agent's question, or a session waiting for
// its next prompt. Records live in a Store (SQLite, PostgreSQL), so a question asked through one
// instance is answered on any other and survives a restart.
type Record struct {
	ID        string `json:"id"` // q-… or input-…
	Kind      Kind   `json:"kind"`
	SessionID string `json:"sessionId"`
	Agent     string `json:"agent,omitempty"`     // the canonical agent id, when the session is unknown
	AgentName string `json:"agentName,omitempty"` // its display name, likewise
	Title     string `json:"title"`
	// Text is the question(s) as plain text, or the agent's last message of a waiting session.
	Text      string     `json:"text,omitempty"`
	Questions []Question `json:"questions,omitempty"`
	// Answerable is false when only the terminal can answer (no hook waits for plandash's answer).
	Answerable bool      `json:"answerable"`
	Since      time.Time `json:"since"`
	Deadline   time.Time `json:"deadline,omitzero"`
	Then       string    `json:"then,omitempty"`

	// Set once the wait ended.
	Ended   time.Time           `json:"ended,omitzero"`
	EndedBy string              `json:"endedBy,omitempty"` // who answered, or "terminal", "agent"
	Outcome string              `json:"outcome,omitempty"` // what happened, in words
	Answers map[string][]string `json:"answers,omitempty"` // by question text, when answered here
}

// Open reports whether the agent still waits.
func (r Record) Open() bool { return r.Ended.IsZero() }

// Question is one question an agent asks, with the choices it offers.
type Question struct {
	Question string   `json:"question"`
	Header   string   `json:"header,omitempty"` // a short label for the question
	Options  []Option `json:"options,omitempty"`
	Multi    bool     `json:"multi,omitempty"`    // several options may be chosen
	FreeText bool     `json:"freeText,omitempty"` // the person may answer in their own words
}

// Option is one choice of a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Store keeps the records. Every method is atomic, also across instances sharing a database.
type Store interface {
	// Begin stores r, replacing a record of the same id (a session that waits again).
	Begin(ctx context.Context, r Record) error
	// End calls end with the record (a copy; nil when there is none) and, when it returns nil,
	// stores the record as end left it, as one step: two instances ending a wait at once are
	// serialised, and end sees the first's outcome.
	End(ctx context.Context, id string, end func(*Record) error) (Record, error)
	// Get returns a record, or a NotFound error.
	Get(ctx context.Context, id string) (Record, error)
	// Open returns the records whose wait has not ended, in no order.
	Open(ctx context.Context) ([]Record, error)
}

// maxEndedRecords is how many ended records a store keeps, so a late answer learns who won.
const maxEndedRecords = 500

// MaxEndedRecords is maxEndedRecords, for the stores.
const MaxEndedRecords = maxEndedRecords

// Asked holds the waits plandash keeps: questions and sessions waiting for input. Hooks wait on
// a question here (Wait) until a person answers it on any instance.
type Asked struct {
	store    Store
	now      func() time.Time
	log      *slog.Logger
	onChange func(id, began string)

	mu      sync.Mutex
	waiters map[string]chan struct{} // by id: closed when the record may have ended
}

// NewAsked returns the waits kept in store.
func NewAsked(store Store, now func() time.Time, log *slog.Logger) *Asked {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Asked{store: store, now: now, log: log, onChange: func(string, string) {}, waiters: map[string]chan struct{}{}}
}

// Now is the clock.
func (a *Asked) Now() time.Time { return a.now() }

// Begin records that an agent began to wait.
func (a *Asked) Begin(ctx context.Context, r Record) error {
	if r.ID == "" || (r.Kind != KindQuestion && r.Kind != KindInput) {
		return errs.Errorf(errs.Invalid, "a kept wait needs an id and the kind question or input")
	}
	if r.Since.IsZero() {
		r.Since = a.now()
	}
	r.Ended, r.EndedBy, r.Outcome, r.Answers = time.Time{}, "", "", nil
	if err := a.store.Begin(ctx, r); err != nil {
		return err
	}
	a.changed(r.ID, r.Title)
	return nil
}

// Close ends a wait that ended elsewhere (answered in the terminal, the session moved on), if
// it was still open; it reports whether it was.
func (a *Asked) Close(ctx context.Context, id, by, outcome string) (bool, error) {
	// Most events of a session find nothing open: a read costs far less than a write.
	if r, err := a.store.Get(ctx, id); errs.KindOf(err) == errs.NotFound || (err == nil && !r.Open()) {
		return false, nil
	}
	closed := false
	_, err := a.store.End(ctx, id, func(r *Record) error {
		if r == nil || !r.Open() {
			return errNoChange
		}
		r.Ended, r.EndedBy, r.Outcome, closed = a.now(), by, outcome, true
		return nil
	})
	if errors.Is(err, errNoChange) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	a.changed(id, "")
	return closed, nil
}

// errNoChange stops an End that has nothing to store.
var errNoChange = errs.New(errs.Conflict, "nothing to change")

// Answer answers a question on the person's behalf: the first answer wins.
func (a *Asked) Answer(ctx context.Context, id string, ans Answer) (Record, string, error) {
	var outcome string
	var before Record
	got, err := a.store.End(ctx, id, func(r *Record) error {
		if r == nil {
			return errs.Errorf(errs.NotFound, "no wait %q", id)
		}
		before = *r
		if !r.Open() {
			return &EndedError{ID: id, Outcome: r.Outcome}
		}
		if !r.Answerable {
			return errs.Errorf(errs.Unprocessable, "this wait can only be answered in the terminal")
		}
		answers, err := r.resolve(ans)
		if err != nil {
			return err
		}
		outcome = answerWords(answers, r.Questions)
		r.Ended, r.EndedBy, r.Outcome, r.Answers = a.now(), ans.By, "answered: "+outcome, answers
		return nil
	})
	if err != nil {
		return before, "", err
	}
	a.changed(id, "")
	return got, "answered: " + outcome, nil
}

// Wait returns the record once its wait ended, or as it stands after limit or when ctx ends.
func (a *Asked) Wait(ctx context.Context, id string, limit time.Duration) (Record, error) {
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		ch := a.waiter(id)
		r, err := a.store.Get(ctx, id)
		if err != nil || !r.Open() {
			return r, err
		}
		select {
		case <-ch:
		case <-t.C:
			return r, nil
		case <-ctx.Done():
			return r, ctx.Err()
		}
	}
}

// Get returns a record.
func (a *Asked) Get(ctx context.Context, id string) (Record, error) { return a.store.Get(ctx, id) }

// Open returns the records whose wait has not ended.
func (a *Asked) Open(ctx context.Context) ([]Record, error) { return a.store.Open(ctx) }

// Notify tells Asked that another instance sharing its store changed record id: the hooks
// waiting here wake, and the list moves.
func (a *Asked) Notify(id string) { a.changed(id, "") }

// waiter is the channel closed at id's next change.
func (a *Asked) waiter(id string) chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch := a.waiters[id]
	if ch == nil {
		ch = make(chan struct{})
		a.waiters[id] = ch
	}
	return ch
}

// changed wakes id's waiters and tells the list.
func (a *Asked) changed(id, began string) {
	a.mu.Lock()
	if ch := a.waiters[id]; ch != nil {
		close(ch)
		delete(a.waiters, id)
	}
	a.mu.Unlock()
	a.onChange(id, began)
}
