// Package page is keyset paging for every list plandash serves: an opaque cursor naming the last
// row a client saw, and the bounds on how many rows one answer holds. A keyset cursor (rather
// than an offset) keeps a walk stable while rows are inserted ahead of it: the next page starts
// right after the row the client last saw, wherever that row now sits.
package paging

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/plandash/plandash/internal/errs"
)

// Bounds of one page. MaxLimit keeps any list answer far below 2 MB even when each row is a
// whole plan; DefaultLimit is what a client that names no limit gets.
const (
	DefaultLimit = 50
	MaxLimit     = 200
)

// maxCursor bounds a cursor's text: a position is a number and an identifier, never more.
const maxCursor = 1024

// Cursor is a position in a list: the sort key of the last row seen (a time in Unix
// nanoseconds, a sequence or revision number) and its identifier, which breaks ties between
// rows with the same key. The zero Cursor is the start of the list.
type Cursor struct {
	Key int64
	ID  string
}

// IsZero reports whether c is the start of the list.
func (c Cursor) IsZero() bool { return c.Key == 0 && c.ID == "" }

// String is the cursor as clients see it: opaque, URL-safe, empty for the start.
func (c Cursor) String() string {
	if c.IsZero() {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte("1:" + strconv.FormatInt(c.Key, 10) + ":" + c.ID))
}

// Parse reads a cursor that String made; the empty text is the start. Anything else is an
// error of kind Invalid: a client should only ever send back what it was given.
func Parse(s string) (Cursor, error) {
	if s == "" {
		return Cursor{}, nil
	}
	bad := errs.New(errs.Invalid, "cursor is not one this server gave out; start again without it")
	if len(s) > maxCursor {
		return Cursor{}, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	// Base64 has several spellings of the same bytes (unused trailing bits); only ours counts.
	if err != nil || base64.RawURLEncoding.EncodeToString(raw) != s {
		return Cursor{}, bad
	}
	version, rest, ok := strings.Cut(string(raw), ":")
	if !ok || version != "1" {
		return Cursor{}, bad
	}
	key, id, ok := strings.Cut(rest, ":")
	if !ok {
		return Cursor{}, bad
	}
	k, err := strconv.ParseInt(key, 10, 64)
	// Only the canonical spelling of the number, so one position has one cursor.
	if err != nil || strconv.FormatInt(k, 10) != key {
		return Cursor{}, bad
	}
	c := Cursor{Key: k, ID: id}
	if c.IsZero() {
		return Cursor{}, bad
	}
	return c, nil
}

// Request is what a client asked for: up to Limit rows after After.
type Request struct {
	After Cursor
	Limit int
}

// ParseRequest reads ?cursor= and ?limit= (absent: the start, DefaultLimit). A limit above
// MaxLimit is lowered to it rather than refused, so a client asking for "everything" gets
// pages; a limit that is not a positive number is an error of kind Invalid.
func ParseRequest(cursor, limit string) (Request, error) {
	r := Request{Limit: DefaultLimit}
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 {
			return r, errs.Errorf(errs.Invalid, "limit must be a number from 1 to %d", MaxLimit)
		}
		r.Limit = min(n, MaxLimit)
	}
	var err error
	r.After, err = Parse(cursor)
	return r, err
}

// Clamp is r with its limit within 1 and MaxLimit, for callers that build a Request by hand.
func (r Request) Clamp() Request {
	if r.Limit < 1 {
		r.Limit = DefaultLimit
	}
	r.Limit = min(r.Limit, MaxLimit)
	return r
}

// Fetch is how many rows a store reads for r: one more than the page, so it knows whether
// another page follows without counting.
func (r Request) Fetch() int { return r.Clamp().Limit + 1 }

// Trim cuts rows read with Fetch to the page and returns the cursor of the next page, zero when
// this is the last one. key gives the position of a row.
func Trim[T any](r Request, rows []T, key func(T) Cursor) ([]T, Cursor) {
	n := r.Clamp().Limit
	if len(rows) <= n {
		return rows, Cursor{}
	}
	rows = rows[:n]
	return rows, key(rows[n-1])
}

// String describes r for logs and errors.
func (r Request) String() string { return fmt.Sprintf("limit %d after %q", r.Limit, r.After.String()) }

// NextURL is u's path and query with the cursor (?cursor=) moved on to c: the link to the next
// page of the list u shows.
func NextURL(u *url.URL, c Cursor) string {
	q := u.Query()
	q.Set("cursor", c.String())
	next := url.URL{Path: u.Path, RawQuery: q.Encode()}
	return next.String()
}
