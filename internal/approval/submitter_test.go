package approval

import (
	"testing"
	"time"
)

func TestSubmitterOwns(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	a := Submitter{ID: "id-a", Label: "token:a", Since: t0}
	newA := Submitter{ID: "id-a2", Label: "token:a", Since: t0.Add(time.Hour)}
	for _, tc := range []struct {
		name string
		s    Submitter
		r    Request
		want bool
	}{
		{"its own", a, Request{SubmittedBy: "token:a", SubmitterID: "id-a"}, true},
		{"a new token of the same name", newA, Request{SubmittedBy: "token:a", SubmitterID: "id-a"}, false},
		{"the server's request", a, Request{}, false},
		{"another token's", a, Request{SubmittedBy: "token:b", SubmitterID: "id-b"}, false},
		{"stored before identities, by its token", a, Request{SubmittedBy: "token:a", Created: t0.Add(time.Minute)}, true},
		{"stored before identities, a newer token of the name", newA, Request{SubmittedBy: "token:a", Created: t0.Add(time.Minute)}, false},
		{"no identity", Submitter{Label: "token:a"}, Request{SubmittedBy: "token:a", SubmitterID: "id-a"}, false},
	} {
		if got := tc.s.Owns(tc.r); got != tc.want {
			t.Errorf("%s: Owns = %v, want %v", tc.name, got, tc.want)
		}
	}
}
