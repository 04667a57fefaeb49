package sqlite

import (
	"database/sql"
	"encoding/binary"
	"errors"
)

// A plan's newest revisions wait in its own row (plans.pending) and go to plan_revisions
// together when no more fit. plan_revisions is ordered by plan, so each plan's newest rows sit
// on a page of their own: a commit that revised fifty plans wrote fifty such pages, and split
// one every few commits, besides the plans' rows, which it rewrites anyway and which share
// pages. A pending revision is as durable as the row it is in, and every read of a plan's
// history reads the row's pending revisions after the plan's rows (storedRows).
//
// The pending revisions take slotSize bytes of the row, padded with zeros, whether it holds
// one or none: a row that grew with each revision and shrank with each flush made SQLite move
// rows between pages to fit them, rewriting three or four pages for one row, where a row that
// keeps its size is rewritten in place.
const slotSize = 1024

// maxRow is the most bytes a plan's body and slot may take; a plan whose body leaves no room
// has no slot, and its revisions go to plan_revisions at once. Over about 4 KB a row spills
// into overflow pages, which each change of the row frees and allocates anew, writing the
// page, the file's header and its pointer map: more pages than pending revisions save.
const maxRow = 3500

// pendingSchema makes plans a table in the order its rows were made, with pending revisions.
// Keyed by session and plan id, with no rowid, a row could hold about 1 KB before it spilled
// into overflow pages, and a plan's row sat among those of every plan ever seen; now it holds
// up to about 4 KB, the plans of the sessions at work sit together at the table's end, and the
// key is a small index beside it that a change of a row does not touch.
const pendingSchema = `
CREATE TABLE plans_in_order (
	session_id TEXT NOT NULL,
	plan_id TEXT NOT NULL,
	removed INTEGER NOT NULL,
	updated INTEGER NOT NULL,
	body BLOB NOT NULL,
	entry_count INTEGER NOT NULL DEFAULT 0,
	open_count INTEGER NOT NULL DEFAULT 0,
	pending BLOB,
	UNIQUE (session_id, plan_id)
);
INSERT INTO plans_in_order(session_id, plan_id, removed, updated, body, entry_count, open_count)
	SELECT session_id, plan_id, removed, updated, body, entry_count, open_count FROM plans ORDER BY updated, session_id, plan_id;
DROP TABLE plans;
ALTER TABLE plans_in_order RENAME TO plans;
`

// stored is one revision as plan_revisions stores it.
type stored struct {
	revision, format int
	at               int64 // Unix milliseconds
	body             []byte
}

// appendPending appends r to a pending list: its revision, format and time as varints, then
// its body's length and the body. A revision is never 0, so the first zero byte where a
// revision would start ends the list (the slot's padding).
func appendPending(b []byte, r stored) []byte {
	b = binary.AppendUvarint(b, uint64(r.revision))
	b = binary.AppendUvarint(b, uint64(r.format))
	b = binary.AppendVarint(b, r.at)
	b = binary.AppendUvarint(b, uint64(len(r.body)))
	return append(b, r.body...)
}

var errPending = errors.New("sqlite: a plan's pending revisions are unreadable")

// decodePending splits a slot into its pending revisions; the bodies point into b.
func decodePending(b []byte) ([]stored, error) {
	var out []stored
	for i := 0; ; {
		r, next, err := nextPending(b, i)
		if err != nil || next == i {
			return out, err
		}
		out, i = append(out, r), next
	}
}

// pendingLen is how many bytes of a slot its pending revisions take.
func pendingLen(b []byte) (int, error) {
	for i := 0; ; {
		_, next, err := nextPending(b, i)
		if err != nil || next == i {
			return i, err
		}
		i = next
	}
}

// nextPending reads the pending revision at b[i:] and returns where the next one starts: i
// itself at the end of the list.
func nextPending(b []byte, i int) (stored, int, error) {
	if i == len(b) || b[i] == 0 {
		return stored{}, i, nil
	}
	var v [4]uint64
	var at int64
	for k := range v {
		var n int
		if k == 2 {
			at, n = binary.Varint(b[i:])
		} else {
			v[k], n = binary.Uvarint(b[i:])
		}
		if n <= 0 {
			return stored{}, i, errPending
		}
		i += n
	}
	if v[3] > uint64(len(b)-i) {
		return stored{}, i, errPending
	}
	end := i + int(v[3])
	return stored{revision: int(v[0]), format: int(v[1]), at: at, body: b[i:end:end]}, end, nil
}

// newList is a pending list to append to, holding old's revisions, with room for a slot.
func newList(old []byte) ([]byte, error) {
	n, err := pendingLen(old)
	return append(make([]byte, 0, slotSize), old[:n]...), err
}

// slot is a pending list made by newList as its row stores it: padded with zeros to slotSize,
// or nil when it does not fit or the row has no room for it (and its revisions go to
// plan_revisions).
func slot(list []byte, body []byte) []byte {
	if len(list) > slotSize || len(body)+slotSize > maxRow {
		return nil
	}
	if cap(list) < slotSize {
		list = append(make([]byte, 0, slotSize), list...)
	}
	// Appends only ever wrote up to len(list): past it is as make zeroed it.
	return list[:slotSize]
}

// storedRows reads rows of (part, revision, format, at, body) in order: part 0 is a row of
// plan_revisions, part 1 a plan's pending list, whose revisions follow its rows. Every read of
// a plan's history is one statement of both tables, so it sees one state of them: a flush
// between two statements would show its revisions twice, or not at all.
func storedRows(rows *sql.Rows, each func(stored) error) error {
	for rows.Next() {
		var (
			part int
			r    stored
		)
		if err := rows.Scan(&part, &r.revision, &r.format, &r.at, &r.body); err != nil {
			return err
		}
		if part == 0 {
			if err := each(r); err != nil {
				return err
			}
			continue
		}
		list, err := decodePending(r.body)
		if err != nil {
			return err
		}
		for _, p := range list {
			if err := each(p); err != nil {
				return err
			}
		}
	}
	return rows.Err()
}

// pendingAfter is the part of a read of a plan's revisions that adds its pending list, as
// storedRows reads it; ?1 and ?2 are the plan's session and id.
const pendingAfter = ` UNION ALL SELECT 1, 0, 0, 0, pending FROM plans WHERE session_id = ?1 AND plan_id = ?2 AND pending IS NOT NULL`

// nullIfEmpty is b as a column's value: NULL for no slot, not an empty blob.
func nullIfEmpty(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}
