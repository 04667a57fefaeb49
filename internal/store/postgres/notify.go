package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"

	"github.com/jackc/pgx/v5"

	"github.com/plandash/plandash/internal/changes"
)

// Note is one committed change as instances tell each other over LISTEN/NOTIFY. It carries ids
// only: each instance reads and renders what changed itself, and a payload stays far below
// PostgreSQL's 8000-byte limit.
type Note struct {
	Instance string `json:"instance,omitempty"` // the instance that committed it; "" when read back in a catch-up
	Kind     string `json:"kind"`               // one of the Note* kinds
	ID       string `json:"id,omitempty"`
	Part     string `json:"part,omitempty"`
	// Seq numbers the commit in its kind's stream (plans, approvals, shared-plan history,
	// permissions). Within a stream commits become visible in Seq order, so it is the cursor
	// a listener catches up from.
	Seq uint64 `json:"seq"`
}

// The kinds of notes: the live layer's change kinds (package changes), so a note is announced
// as it comes; a session note's Part is one of changes' Part*.
const (
	NoteSession     = changes.Session
	NoteApproval    = changes.Approval
	NoteRules       = changes.Rules
	NoteShared      = changes.Shared
	NotePermissions = changes.Permissions
	NoteWaits       = changes.Waits
	// noteStream says something changed in stream ID that did not fit in a payload: listeners
	// catch up on that stream from their cursor.
	noteStream = "stream"
)

// Streams: each has its own sequence, committed in order.
const (
	streamPlans       = "plans"
	streamApprovals   = "approvals"
	streamHistory     = "history"
	streamPermissions = "permissions"
	streamWaits       = "waits"
)

var streams = [...]string{streamPlans, streamApprovals, streamHistory, streamPermissions, streamWaits}

func streamOf(kind string) string {
	switch kind {
	case NoteSession:
		return streamPlans
	case NoteApproval, NoteRules:
		return streamApprovals
	case NoteShared:
		return streamHistory
	case NotePermissions:
		return streamPermissions
	case NoteWaits:
		return streamWaits
	}
	return ""
}

// maxPayload is below PostgreSQL's limit of 8000 bytes for a notification's payload.
const maxPayload = 7900

// notifier sends a commit's notes inside its transaction: PostgreSQL delivers them when, and
// only when, the transaction commits, so nothing is announced that was not stored and nothing
// stored goes unannounced.
type notifier struct {
	channel  string // per schema, so deployments (and tests) sharing a database do not hear each other
	instance string // this process; its own notes are skipped by its listener
}

// newNotifier names the channel after the schema the tables live in.
func newNotifier(ctx context.Context, q querier) (*notifier, error) {
	var schema string
	if err := q.QueryRow(ctx, `SELECT coalesce(current_schema(), '')`).Scan(&schema); err != nil {
		return nil, fmt.Errorf("read the current schema: %w", err)
	}
	h := fnv.New64a()
	h.Write([]byte(schema))
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return &notifier{channel: fmt.Sprintf("plandash_%x", h.Sum64()), instance: hex.EncodeToString(b)}, nil
}

// payloads encodes notes of one commit in stream numbered seq. A note too large for a payload
// (a very long id) becomes a stream note, which makes listeners read the change back.
func (n *notifier) payloads(stream string, seq uint64, notes []Note) []string {
	out := make([]string, 0, len(notes))
	overflow := false
	for _, note := range notes {
		note.Instance, note.Seq = n.instance, seq
		b := mustJSON(note)
		if len(b) > maxPayload {
			overflow = true
			continue
		}
		out = append(out, string(b))
	}
	if overflow {
		out = append(out, string(mustJSON(Note{Instance: n.instance, Kind: noteStream, ID: stream, Seq: seq})))
	}
	return out
}

// notifySQL sends one notification per payload, in one statement.
const notifySQL = `SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`

// send notifies notes inside tx, numbered seq in stream.
func (n *notifier) send(ctx context.Context, tx pgx.Tx, stream string, seq uint64, notes ...Note) error {
	if len(notes) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, notifySQL, n.channel, n.payloads(stream, seq, notes))
	return err
}

// queue adds the notifications to a batch that runs inside the committing transaction.
func (n *notifier) queue(b *pgx.Batch, stream string, seq uint64, notes ...Note) {
	if len(notes) > 0 {
		b.Queue(notifySQL, n.channel, n.payloads(stream, seq, notes))
	}
}

// decodeNote reads a payload; a note from a newer plandash with a kind this one does not know
// is reported as an error, not guessed at.
func decodeNote(payload string) (Note, error) {
	var n Note
	if err := json.Unmarshal([]byte(payload), &n); err != nil {
		return Note{}, fmt.Errorf("notification %.80q: %w", payload, err)
	}
	if n.Kind == noteStream {
		if !validStream(n.ID) {
			return Note{}, fmt.Errorf("notification names no stream: %.80q", payload)
		}
		return n, nil
	}
	if streamOf(n.Kind) == "" {
		return Note{}, fmt.Errorf("notification of unknown kind %q", n.Kind)
	}
	return n, nil
}

func validStream(s string) bool {
	for _, x := range streams {
		if s == x {
			return true
		}
	}
	return false
}
