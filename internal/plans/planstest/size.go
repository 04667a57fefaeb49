package planstest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/plans"
)

// RevisionBytes is what a store's own test tells the suite about its storage: the bytes the
// bodies of its stored revisions take, all plans together.
type RevisionBytes func(t *testing.T, s plans.Store) int64

// Checklist is an items plan of n entries, all pending, the shape of plan whose history the
// storage goals are stated for.
func Checklist(sessionID, planID string, n int, created time.Time) *plans.Plan {
	p := &plans.Plan{SessionID: sessionID, ID: planID, Kind: plans.KindItems, Type: "items", Created: created, Agent: "Claude Code"}
	for i := range n {
		p.Entries = append(p.Entries, plans.Entry{Content: fmt.Sprintf("Step %d: change the code and its tests", i),
			Priority: "medium", Status: plans.StatusPending})
	}
	return p
}

// testRevisionSize is the storage goal every store meets: updates that each change one entry
// of a 50-entry plan store no more than that entry and 200 bytes per revision, not the whole
// plan again, and every revision still reads back exactly.
func testRevisionSize(t *testing.T, s plans.Store, size RevisionBytes) {
	ctx := context.Background()
	p := Checklist("s", "big", 50, at(0))
	var want []plans.Revision
	revise := func(i int) {
		p.Revision++
		p.Updated = at(i)
		rev := *p
		rev.Entries = append([]plans.Entry(nil), p.Entries...)
		commit(t, s, &plans.Changes{Sessions: []*plans.Session{session("s", i)}, Plans: []*plans.Plan{p}, Revisions: []*plans.Plan{&rev}})
		want = append(want, plans.Revision{Revision: rev.Revision, At: rev.Updated, Plan: rev})
	}
	revise(1)
	before := size(t, s)
	const updates = 200
	next := map[string]string{plans.StatusPending: plans.StatusInProgress, plans.StatusInProgress: plans.StatusCompleted, plans.StatusCompleted: plans.StatusPending}
	for i := range updates {
		e := &p.Entries[(i*7)%len(p.Entries)]
		e.Status = next[e.Status]
		revise(2 + i)
	}
	perRevision := (size(t, s) - before) / updates
	entry, _ := json.Marshal(p.Entries[0])
	whole, _ := json.Marshal(p)
	t.Logf("%d bytes per revision; the changed entry is %d bytes, the whole plan %d", perRevision, len(entry), len(whole))
	if perRevision > int64(len(entry))+200 {
		t.Errorf("%d bytes per revision, want at most %d (the changed entry) + 200: revisions are stored whole?", perRevision, len(entry))
	}
	hist, err := s.History(ctx, "s", "big")
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].Plan.Seq = hist[i].Plan.Seq // the commit's, which the store sets
	}
	same(t, "history", hist, want)
	for _, n := range []int{1, 2, updates / 2, updates + 1} {
		r, err := s.RevisionAt(ctx, "s", "big", n)
		if err != nil {
			t.Fatalf("RevisionAt(%d): %v", n, err)
		}
		same(t, fmt.Sprintf("revision %d", n), r, want[n-1])
	}
}
