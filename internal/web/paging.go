package web

import (
	"encoding/json"
	"net/http"

	"github.com/plandash/plandash/internal/paging"
	"github.com/plandash/plandash/internal/plans"
)

// maxListAnswer bounds a list answer's size: a page whose rows are large (approval requests with
// 1 MB plans, sessions' whole plans) is cut short of its limit, and its next cursor starts right
// after the last row it holds. A single row is never cut, and every row's size is bounded where
// it is accepted.
const maxListAnswer = 1536 << 10

// pageRequest reads ?cursor= and ?limit= (see paging.ParseRequest).
func pageRequest(r *http.Request) (paging.Request, error) {
	q := r.URL.Query()
	return paging.ParseRequest(q.Get("cursor"), q.Get("limit"))
}

// writePage answers with one page of a list: body builds the answer from the rows kept and the
// next cursor's text (empty on the last page), which is also sent as a Link header (RFC 8288)
// to the same URL with the cursor replaced. Rows are dropped from the end, halving, until the
// answer fits maxListAnswer.
func writePage[T any](w http.ResponseWriter, r *http.Request, rows []T, next paging.Cursor, key func(T) paging.Cursor, body func(rows []T, next string) any) {
	n := len(rows)
	for {
		cut := next
		if n < len(rows) {
			cut = key(rows[n-1])
		}
		b, err := json.Marshal(body(rows[:n], cut.String()))
		if err != nil {
			http.Error(w, "the answer could not be encoded", http.StatusInternalServerError)
			return
		}
		b = append(plans.IndentShallow(b, plans.MaxShownDepth), '\n')
		if len(b) > maxListAnswer && n > 1 {
			n /= 2
			continue
		}
		if !cut.IsZero() {
			w.Header().Set("Link", "<"+paging.NextURL(r.URL, cut)+`>; rel="next"`)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b)
		return
	}
}
