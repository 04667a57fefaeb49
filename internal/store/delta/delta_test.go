package delta

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/internal/plans/planstest"
	"github.com/plandash/plandash/internal/store/body"
)

var rt0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// bigPlan is an items plan of n entries, all pending.
func bigPlan(sid, pid string, n int) *plans.Plan { return planstest.Checklist(sid, pid, n, rt0) }

func decode[T any](b []byte) (T, error) { return body.Decode[T](b) }

func FuzzDelta(f *testing.F) {
	f.Add([]byte(`{"entries":[{"a":1},{"b":2}],"x":1}`), []byte(`{"entries":[{"b":2},{"c":3}],"y":2}`), []byte(`{"e":[{"a":0,"n":1}]}`))
	f.Add([]byte(`{"entries":[]}`), []byte(`{"entries":7}`), []byte(`{"s":{"k":1},"d":["x"]}`))
	f.Fuzz(func(t *testing.T, a, b, stored []byte) {
		// A stored delta of any shape applies or fails, never panics.
		var d delta
		if base, err := splitFields(a); err == nil && json.Unmarshal(stored, &d) == nil {
			d.apply(base)
		}
		fa, errA := splitFields(a)
		fb, errB := splitFields(b)
		if errA != nil || errB != nil || fa == nil || fb == nil {
			return
		}
		// The delta from a to b, through its encoding, rebuilds b.
		got := applyStored(t, diffFields(fa, fb), fa)
		if len(got) != len(fb) {
			t.Fatalf("rebuilt %d members, want %d", len(got), len(fb))
		}
		for k, v := range fb {
			if !jsonEqual(got[k], v) {
				t.Fatalf("member %q = %s, want %s", k, got[k], v)
			}
		}
	})
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// applyStored applies d to base as a stored delta is applied: after a trip through its JSON.
func applyStored(t testing.TB, d delta, base Fields) Fields {
	t.Helper()
	var stored delta
	if err := json.Unmarshal(mustJSON(d), &stored); err != nil {
		t.Fatal(err)
	}
	next, err := stored.apply(base)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return next
}
