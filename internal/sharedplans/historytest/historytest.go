// Package historytest states the sharedplans.HistoryStore contract as tests. Every
// implementation runs them:
//
//	func TestHistoryContract(t *testing.T) { historytest.Run(t, openHistory) }
package historytest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/sharedplans"
)

type entry = sharedplans.HistoryEntry

// Run runs the contract suite. open returns an empty store that lives until the test ends.
func Run(t *testing.T, open func(t *testing.T) sharedplans.HistoryStore) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, sharedplans.HistoryStore)
	}{
		{"Record deduplicates and orders", testRecord},
		{"Source is kept", testSourceIsKept},
		{"an empty store", testEmpty},
		{"SeenAt is filled and kept to the millisecond", testSeenAt},
		{"a removal keeps no content", testRemovalClears},
		{"Latest and Entry", testLatestAndEntry},
		{"History limit and names", testHistoryLimit},
		{"ChangedSince carries content", testChangedSinceContent},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

func record(t *testing.T, s sharedplans.HistoryStore, e entry) entry {
	t.Helper()
	got, added, err := s.Record(context.Background(), e)
	if err != nil || !added {
		t.Fatalf("Record(%+v) = %+v, %v, %v; want added", e, got, added, err)
	}
	return got
}

func testRecord(t *testing.T, s sharedplans.HistoryStore) {
	ctx := context.Background()
	v1 := entry{Name: "release", Revision: 1, Title: "Release", Content: "a", UpdatedAt: "2026-01-01T00:00:00Z"}
	v2 := v1
	v2.Revision, v2.Content, v2.UpdatedAt = 2, "a\nb", "2026-01-01T00:00:01Z"
	status := v2
	status.Revision, status.Status = 3, "done"
	var lastSeq int64
	for _, tt := range []struct {
		name  string
		e     entry
		added bool
	}{
		{"a removal of a plan never seen", entry{Name: "release", Removed: true}, false},
		{"first state", v1, true},
		{"the same state again (a restart, the watcher after the writer)", v1, false},
		{"the same state from another source", entry{Name: v1.Name, Revision: v1.Revision, Title: v1.Title, Content: v1.Content, UpdatedAt: v1.UpdatedAt, Source: "browser"}, false},
		{"a new revision", v2, true},
		{"a status-only change", status, true},
		{"removed", entry{Name: "release", Removed: true, Title: "dropped"}, true},
		{"removed again", entry{Name: "release", Removed: true}, false},
		{"re-created at revision 1, same content as before", v1, true},
		{"another plan", entry{Name: "other", Revision: 1, Content: "x"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, added, err := s.Record(ctx, tt.e)
			if err != nil || added != tt.added {
				t.Fatalf("Record = %+v, %v, %v; want added=%v", got, added, err, tt.added)
			}
			if added && (got.Seq <= lastSeq || got.Source != "disk" || got.SeenAt.IsZero()) {
				t.Fatalf("recorded entry = %+v; want Seq > %d, Source disk, SeenAt set", got, lastSeq)
			}
			if added && got.Removed && got.Title != "" {
				t.Fatalf("a removal keeps no content: %+v", got)
			}
			if !added && got.Seq != 0 && got.Seq != lastSeq {
				t.Fatalf("not added: got %+v, want the newest entry (Seq %d) or none", got, lastSeq)
			}
			if added {
				lastSeq = got.Seq
			}
		})
	}

	hist, err := s.History(ctx, "release", 100)
	if err != nil {
		t.Fatal(err)
	}
	var revs []int
	for _, e := range hist {
		if e.Content != "" {
			t.Fatalf("History returns no content: %+v", e)
		}
		r := e.Revision
		if e.Removed {
			r = -1
		}
		revs = append(revs, r)
	}
	if want := []int{1, -1, 3, 2, 1}; !slices.Equal(revs, want) {
		t.Fatalf("history revisions (newest first) = %v, want %v", revs, want)
	}
	full, ok, err := s.Entry(ctx, "release", hist[3].Seq)
	if err != nil || !ok || full.Content != "a\nb" {
		t.Fatalf("Entry = %+v %v %v", full, ok, err)
	}
	if _, ok, _ := s.Entry(ctx, "other", hist[3].Seq); ok {
		t.Fatal("Entry found a seq under another plan's name")
	}

	cur, err := s.Current(ctx)
	if err != nil || len(cur) != 2 || cur["release"].Revision != 1 || cur["other"].Revision != 1 {
		t.Fatalf("Current = %+v, %v", cur, err)
	}
	for name, e := range cur {
		if e.Content != "" || e.Name != name {
			t.Fatalf("Current[%q] = %+v; want its own name and no content", name, e)
		}
	}
	seq, err := s.Seq(ctx)
	if err != nil || seq != lastSeq {
		t.Fatalf("Seq = %d, %v; want the newest entry's %d", seq, err, lastSeq)
	}
	changed, err := s.ChangedSince(ctx, hist[2].Seq)
	if err != nil || len(changed) != 2 || changed[0].Name != "release" || changed[0].Seq != hist[0].Seq || changed[1].Name != "other" {
		t.Fatalf("ChangedSince = %+v, %v", changed, err)
	}
	if none, err := s.ChangedSince(ctx, lastSeq); err != nil || len(none) != 0 {
		t.Fatalf("ChangedSince(newest) = %+v, %v; want nothing", none, err)
	}
}

func testSourceIsKept(t *testing.T, s sharedplans.HistoryStore) {
	e, _, err := s.Record(context.Background(), entry{Name: "p", Revision: 1, Content: "x", Source: "browser"})
	if err != nil || e.Source != "browser" {
		t.Fatalf("%+v %v", e, err)
	}
	got, ok, err := s.Latest(context.Background(), "p")
	if err != nil || !ok || got.Source != "browser" {
		t.Fatalf("Latest = %+v %v %v; want source browser", got, ok, err)
	}
}

func testEmpty(t *testing.T, s sharedplans.HistoryStore) {
	ctx := context.Background()
	if seq, err := s.Seq(ctx); err != nil || seq != 0 {
		t.Fatalf("Seq = %d, %v; want 0", seq, err)
	}
	if _, ok, err := s.Latest(ctx, "p"); err != nil || ok {
		t.Fatalf("Latest found something (%v, %v)", ok, err)
	}
	if _, ok, err := s.Entry(ctx, "p", 1); err != nil || ok {
		t.Fatalf("Entry found something (%v, %v)", ok, err)
	}
	if h, err := s.History(ctx, "p", 10); err != nil || len(h) != 0 {
		t.Fatalf("History = %+v, %v", h, err)
	}
	if c, err := s.Current(ctx); err != nil || len(c) != 0 {
		t.Fatalf("Current = %+v, %v", c, err)
	}
	if c, err := s.ChangedSince(ctx, 0); err != nil || len(c) != 0 {
		t.Fatalf("ChangedSince = %+v, %v", c, err)
	}
}

func testSeenAt(t *testing.T, s sharedplans.HistoryStore) {
	ctx := context.Background()
	at := time.Date(2026, 3, 4, 5, 6, 7, 891_234_567, time.UTC)
	got := record(t, s, entry{Name: "p", Revision: 1, Content: "x", SeenAt: at})
	want := at.Truncate(time.Millisecond)
	if !got.SeenAt.Equal(want) {
		t.Fatalf("Record SeenAt = %v, want %v", got.SeenAt, want)
	}
	stored, ok, err := s.Entry(ctx, "p", got.Seq)
	if err != nil || !ok || !stored.SeenAt.Equal(want) {
		t.Fatalf("Entry = %+v %v %v; want SeenAt %v", stored, ok, err, want)
	}
	if filled := record(t, s, entry{Name: "q", Revision: 1, Content: "y"}); filled.SeenAt.IsZero() {
		t.Fatalf("a zero SeenAt is not filled: %+v", filled)
	}
}

func testRemovalClears(t *testing.T, s sharedplans.HistoryStore) {
	ctx := context.Background()
	record(t, s, entry{Name: "p", Revision: 2, Title: "T", Author: "a", Status: "s", Content: "c", UpdatedAt: "u"})
	rm := record(t, s, entry{Name: "p", Revision: 2, Removed: true, Title: "T", Author: "a", Status: "s", Content: "c", UpdatedAt: "u"})
	for _, e := range []entry{rm, mustEntry(t, s, "p", rm.Seq)} {
		if !e.Removed || e.Title != "" || e.Author != "" || e.Status != "" || e.Content != "" || e.UpdatedAt != "" || e.Revision != 2 {
			t.Fatalf("removal = %+v; want removed, revision 2 and nothing else", e)
		}
	}
	if cur, err := s.Current(ctx); err != nil || len(cur) != 0 {
		t.Fatalf("Current after removal = %+v, %v", cur, err)
	}
	latest, ok, err := s.Latest(ctx, "p")
	if err != nil || !ok || latest.Seq != rm.Seq {
		t.Fatalf("Latest = %+v %v %v; want the removal", latest, ok, err)
	}
}

func mustEntry(t *testing.T, s sharedplans.HistoryStore, name string, seq int64) entry {
	t.Helper()
	e, ok, err := s.Entry(context.Background(), name, seq)
	if err != nil || !ok {
		t.Fatalf("Entry(%q, %d) = %v, %v", name, seq, ok, err)
	}
	return e
}

func testLatestAndEntry(t *testing.T, s sharedplans.HistoryStore) {
	ctx := context.Background()
	a := record(t, s, entry{Name: "a", Revision: 1, Title: "A", Author: "me", Status: "open", Content: "one", UpdatedAt: "t1"})
	b := record(t, s, entry{Name: "b", Revision: 1, Content: "bee"})
	a2 := record(t, s, entry{Name: "a", Revision: 2, Content: "two"})
	if !(a.Seq < b.Seq && b.Seq < a2.Seq) {
		t.Fatalf("Seq does not increase across plans: %d %d %d", a.Seq, b.Seq, a2.Seq)
	}
	latest, ok, err := s.Latest(ctx, "a")
	if err != nil || !ok || latest.Seq != a2.Seq || latest.Content != "two" {
		t.Fatalf("Latest = %+v %v %v", latest, ok, err)
	}
	got := mustEntry(t, s, "a", a.Seq)
	got.SeenAt, a.SeenAt = time.Time{}, time.Time{}
	if got != a {
		t.Fatalf("Entry = %+v, want what Record returned %+v", got, a)
	}
	if _, ok, err := s.Entry(ctx, "a", b.Seq); err != nil || ok {
		t.Fatalf("Entry(a, b's seq) found it (%v, %v)", ok, err)
	}
}

func testHistoryLimit(t *testing.T, s sharedplans.HistoryStore) {
	ctx := context.Background()
	var seqs []int64
	for rev := 1; rev <= 5; rev++ {
		seqs = append(seqs, record(t, s, entry{Name: "p", Revision: rev, Content: "x"}).Seq)
		record(t, s, entry{Name: "pp", Revision: rev, Content: "y"}) // a name p is a prefix of
	}
	h, err := s.History(ctx, "p", 2)
	if err != nil || len(h) != 2 || h[0].Seq != seqs[4] || h[1].Seq != seqs[3] {
		t.Fatalf("History(p, 2) = %+v, %v; want seqs %d, %d", h, err, seqs[4], seqs[3])
	}
	all, err := s.History(ctx, "p", 100)
	if err != nil || len(all) != 5 {
		t.Fatalf("History(p, 100) = %d entries, %v", len(all), err)
	}
	for _, e := range all {
		if e.Name != "p" {
			t.Fatalf("History(p) has %+v", e)
		}
	}
	// HistoryBefore walks on from a page's last entry, newest first, and sees entries recorded
	// meanwhile only on a new walk.
	var walked []int64
	before := int64(0)
	for n := 0; n < 10; n++ {
		page, err := s.HistoryBefore(ctx, "p", before, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, e := range page {
			if e.Name != "p" || e.Content != "" {
				t.Fatalf("HistoryBefore has %+v", e)
			}
			walked = append(walked, e.Seq)
		}
		before = page[len(page)-1].Seq
		record(t, s, entry{Name: "p", Revision: 100 + n, Content: "later"})
	}
	if want := []int64{seqs[4], seqs[3], seqs[2], seqs[1], seqs[0]}; !slices.Equal(walked, want) {
		t.Fatalf("HistoryBefore walked %v, want %v", walked, want)
	}
}

func testChangedSinceContent(t *testing.T, s sharedplans.HistoryStore) {
	ctx := context.Background()
	first := record(t, s, entry{Name: "p", Revision: 1, Content: "one"})
	record(t, s, entry{Name: "p", Revision: 2, Content: "two"})
	q := record(t, s, entry{Name: "q", Revision: 1, Content: "q"})
	p3 := record(t, s, entry{Name: "p", Revision: 3, Content: "three"})
	got, err := s.ChangedSince(ctx, first.Seq)
	if err != nil || len(got) != 2 || got[0].Seq != q.Seq || got[1].Seq != p3.Seq || got[1].Content != "three" {
		t.Fatalf("ChangedSince = %+v, %v; want q then p's newest, with content", got, err)
	}
	all, err := s.ChangedSince(ctx, 0)
	if err != nil || len(all) != 2 {
		t.Fatalf("ChangedSince(0) = %+v, %v; want one entry per plan", all, err)
	}
}
