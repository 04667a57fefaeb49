package postgres

import (
	"context"
	"strings"
	"testing"
)

// FuzzOpenURL: the --db URL is outside input. Whatever follows the password in it, Open with a
// context that has already ended fails without connecting anywhere, and its error never
// repeats the password (errors reach the log and the terminal).
func FuzzOpenURL(f *testing.F) {
	for _, s := range []string{
		"127.0.0.1:5432/plandash",
		"db.example:notaport/x",
		"h/db?sslmode=disable&search_path=team",
		"h/db?sslmode=nonsense",
		"[::1]:5432/db?connect_timeout=abc",
		"/db?host=/tmp",
		"",
		"%zz",
	} {
		f.Add(s)
	}
	const password = "pw-4f1d-secret"
	f.Fuzz(func(t *testing.T, rest string) {
		if strings.Contains(rest, password) || strings.Contains(rest, "pool_min_conns") {
			return // the password legitimately appears; or the pool would dial in the background
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		db, err := Open(ctx, "postgres://plandash:"+password+"@"+rest, Options{})
		if err == nil {
			db.Close()
			t.Fatalf("Open(%q) succeeded with an ended context", rest)
		}
		if strings.Contains(err.Error(), password) {
			t.Fatalf("Open(%q) = %v; the error repeats the password", rest, err)
		}
	})
}

// FuzzNotePayload: a notification's payload comes from whatever else writes to the channel.
// decodeNote never panics; a note it accepts has a stream to advance, and survives being
// encoded and decoded again unchanged; and every note this binary sends, split or not, is one
// it accepts, within the payload limit.
func FuzzNotePayload(f *testing.F) {
	n := &notifier{channel: "c", instance: "i"}
	for _, p := range n.payloads(streamPlans, 7, []Note{{Kind: NoteSession, ID: "s", Part: "plan:p"}, {Kind: NoteSession, ID: strings.Repeat("x", maxPayload)}}) {
		f.Add(p)
	}
	for _, s := range []string{`{"kind":"approval","id":"r","seq":3}`, `{"kind":"stream","id":"nope"}`, `{"kind":"x"}`, `null`, `{`, `{"kind":"rules","seq":-1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		note, err := decodeNote(payload)
		if err == nil {
			stream := streamOf(note.Kind)
			if note.Kind == noteStream {
				stream = note.ID
			}
			if !validStream(stream) {
				t.Fatalf("decodeNote(%q) = %+v: no stream to advance", payload, note)
			}
			again, err := decodeNote(string(mustJSON(note)))
			if err != nil || again != note {
				t.Fatalf("a note read back = %+v, %v; want %+v", again, err, note)
			}
		}
		for _, p := range n.payloads(streamApprovals, 1, []Note{{Kind: NoteApproval, ID: payload}}) {
			if len(p) > maxPayload {
				t.Fatalf("a payload of %d bytes", len(p))
			}
			if _, err := decodeNote(p); err != nil {
				t.Fatalf("a note this binary sent is refused: %v", err)
			}
		}
	})
}
