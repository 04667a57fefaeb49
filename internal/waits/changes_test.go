package waits

import (
	"slices"
	"testing"
)

// TestChangesSince: the change log names the waits changed after a sequence, each once, in the
// order of their latest change; it cannot tell after a change that named no wait, or once the changes after the
// sequence are no longer all kept.
func TestChangesSince(t *testing.T) {
	l := changes{lost: 10}
	if ids, ok := l.since(10); !ok || len(ids) != 0 {
		t.Fatalf("nothing logged: %v %v", ids, ok)
	}
	if _, ok := l.since(5); ok {
		t.Fatal("a sequence before the log began was told")
	}
	for i, id := range []string{"plan-a", "plan-b", "plan-a", "q-c"} {
		l.add(Change{Seq: uint64(11 + i), ID: id})
	}
	if ids, ok := l.since(10); !ok || !slices.Equal(ids, []string{"plan-b", "plan-a", "q-c"}) {
		t.Fatalf("since 10: %v %v", ids, ok)
	}
	if ids, ok := l.since(12); !ok || !slices.Equal(ids, []string{"plan-a", "q-c"}) {
		t.Fatalf("since 12: %v %v", ids, ok)
	}
	l.add(Change{Seq: 15}) // a permission's change: no id
	if _, ok := l.since(12); ok {
		t.Fatal("a change without an id was told as known")
	}
	l.add(Change{Seq: 16, ID: "plan-d"})
	if ids, ok := l.since(15); !ok || !slices.Equal(ids, []string{"plan-d"}) {
		t.Fatalf("since 15: %v %v", ids, ok)
	}
	for i := range changeLog {
		l.add(Change{Seq: uint64(100 + i), ID: "plan-x"})
	}
	if _, ok := l.since(15); ok { // plan-d's change is no longer kept
		t.Fatal("changes no longer kept were told as none")
	}
	if ids, ok := l.since(16); !ok || !slices.Equal(ids, []string{"plan-x"}) {
		t.Fatalf("since 16, all after it kept: %v %v", ids, ok)
	}
}
