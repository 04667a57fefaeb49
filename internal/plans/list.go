package plans

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// SessionState is what a list of sessions can be narrowed to.
type SessionState string

// Session states. A session is gone once its agent ended it or it has been idle past the idle
// time; a live one is done when it has checklist entries and none is pending or in progress, and
// active otherwise.
const (
	StateAny    SessionState = ""
	StateActive SessionState = "active"
	StateDone   SessionState = "done"
	StateGone   SessionState = "gone"
)

// LocalHost is the Host filter for sessions of plandash's own machine, whose Host is empty.
const LocalHost = "."

// SessionFilter narrows a list of sessions. Zero fields do not narrow.
type SessionFilter struct {
	Agent string // the agent's name or title, exactly
	Host  string // the machine, exactly (LocalHost: this one)
	Dir   string // the working directory, or one under it
	// Text is found, ignoring ASCII case, in the session's title, directory or agent, or in the
	// text of one of its plans (checklist entries, markdown).
	Text  string
	State SessionState
	// IDs, when not nil, keeps only these sessions (those waiting for a person, say).
	IDs []string
	// Now and Idle say which sessions are gone by idleness.
	Now  time.Time
	Idle time.Duration
	// PlansPer, when above 0, is how many of each session's plans come whole, newest first; the
	// rest are only counted in its Tally.
	PlansPer int
}

// SessionCursor is a place in a list of sessions, which is ordered newest first by when the
// session began, then by ID descending: an order a session keeps for life, so pages do not
// shift as sessions change.
type SessionCursor struct {
	FirstSeen time.Time
	ID        string
}

// CursorOf is the place right after s.
func CursorOf(s Session) SessionCursor { return SessionCursor{FirstSeen: s.FirstSeen, ID: s.ID} }

// IsZero says the cursor is the list's start.
func (c SessionCursor) IsZero() bool { return c.ID == "" && c.FirstSeen.IsZero() }

// NS is the cursor's time as stored: Unix nanoseconds, 0 for a session with no start time.
func (c SessionCursor) NS() int64 { return TimeNS(c.FirstSeen) }

// TimeNS is t in Unix nanoseconds as the stores keep it, 0 for the zero time or any time
// nanoseconds cannot hold.
func TimeNS(t time.Time) int64 {
	if t.Year() < 1678 || t.Year() > 2261 {
		return 0
	}
	return t.UnixNano()
}

// String is the cursor for a URL: opaque, short, safe in a query.
func (c SessionCursor) String() string {
	if c.IsZero() {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.NS(), 10) + ":" + c.ID))
}

// maxCursor bounds a cursor from outside: an id is never longer in practice.
const maxCursor = 1024

// ParseSessionCursor reads a cursor from a URL; "" is the start.
func ParseSessionCursor(s string) (SessionCursor, error) {
	if s == "" {
		return SessionCursor{}, nil
	}
	bad := errs.Errorf(errs.Invalid, "the page cursor is not one this server made; start from the first page")
	if len(s) > maxCursor {
		return SessionCursor{}, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return SessionCursor{}, bad
	}
	ns, id, ok := strings.Cut(string(b), ":")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" || strconv.FormatInt(n, 10) != ns {
		return SessionCursor{}, bad
	}
	c := SessionCursor{ID: id}
	if n != 0 {
		c.FirstSeen = time.Unix(0, n).UTC()
	}
	return c, nil
}

// LikePattern is text as a LIKE pattern matching it anywhere, lower-cased, with the pattern's
// own characters escaped by a backslash (ESCAPE '\').
func LikePattern(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(text)) + "%"
}

// DirPattern is the LIKE pattern of the directories under dir (ESCAPE '\').
func DirPattern(dir string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(strings.TrimRight(dir, "/")) + "/%"
}

// Outline is one session as a live overview redoes its group: the session, the tally of its
// plans that are not removed, the newest of them by name and kind (most recently updated
// first), and those of them asked for whole. Naming a plan costs a row; decoding one, its body.
type Outline struct {
	Session Session
	Tally   Tally
	Newest  []PlanRef
	Plans   []Plan // the plans of Newest asked for whole, in its order
}

// PlanRef names one of a session's plans and says how it is shown, without its body.
type PlanRef struct {
	ID   string
	Kind Kind
}
