// Package pagetest walks a paged list in tests as a client does, for the stores' contract suites.
package pagingtest

import (
	"testing"

	"github.com/plandash/plandash/internal/paging"
)

// Walk follows next cursors from the start until a page says it is the last, calling between
// after each page but the last (to insert rows while the walk is under way). Each cursor goes
// through its text, as a client's does. It fails on a page over the limit, and on a next cursor
// after an empty page or more pages than rows could fill.
func Walk[T any](t *testing.T, limit int, get func(paging.Request) ([]T, paging.Cursor, error), between func(n int)) []T {
	t.Helper()
	var all []T
	r := paging.Request{Limit: limit}
	for n := 0; ; n++ {
		rows, next, err := get(r)
		if err != nil {
			t.Fatalf("page %d: %v", n, err)
		}
		if len(rows) > limit {
			t.Fatalf("page %d has %d rows, over the limit %d", n, len(rows), limit)
		}
		all = append(all, rows...)
		if next.IsZero() {
			return all
		}
		if len(rows) == 0 || n > 1000 {
			t.Fatalf("page %d: a next cursor after %d rows", n, len(rows))
		}
		if r.After, err = paging.Parse(next.String()); err != nil {
			t.Fatalf("page %d: its cursor does not parse: %v", n, err)
		}
		if between != nil {
			between(n)
		}
	}
}
