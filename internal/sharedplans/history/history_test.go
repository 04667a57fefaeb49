package history

import (
	"context"
	"path/filepath"
	"testing"
)

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "plandash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRecord(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	v1 := Entry{Name: "release", Revision: 1, Title: "Release", Content: "a", UpdatedAt: "2026-01-01T00:00:00Z"}
	v2 := v1
	v2.Revision, v2.Content, v2.UpdatedAt = 2, "a\nb", "2026-01-01T00:00:01Z"
	status := v2
	status.Revision, status.Status = 3, "done"
	for _, tt := range []struct {
		name  string
		e     Entry
		added bool
	}{
		{"a removal of a plan never seen", Entry{Name: "release", Removed: true}, false},
		{"first state", v1, true},
		{"the same state again (a restart, the watcher after the writer)", v1, false},
		{"a new revision", v2, true},
		{"a status-only change", status, true},
		{"removed", Entry{Name: "release", Removed: true, Title: "dropped"}, true},
		{"removed again", Entry{Name: "release", Removed: true}, false},
		{"re-created at revision 1, same content as before", v1, true},
		{"another plan", Entry{Name: "other", Revision: 1, Content: "x"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, added, err := s.Record(ctx, tt.e)
			if err != nil || added != tt.added {
				t.Fatalf("Record = %+v, %v, %v; want added=%v", got, added, err, tt.added)
			}
			if added && (got.Seq == 0 || got.Source != "disk" || got.SeenAt.IsZero()) {
				t.Fatalf("recorded entry = %+v", got)
			}
			if added && got.Removed && got.Title != "" {
				t.Fatalf("a removal keeps no content: %+v", got)
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
	if want := []int{1, -1, 3, 2, 1}; !equal(revs, want) {
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
	seq, err := s.Seq(ctx)
	if err != nil || seq != hist[0].Seq+1 {
		t.Fatalf("Seq = %d, %v (newest release entry %d, then other)", seq, err, hist[0].Seq)
	}
	changed, err := s.ChangedSince(ctx, hist[2].Seq)
	if err != nil || len(changed) != 2 || changed[0].Name != "release" || changed[0].Seq != hist[0].Seq || changed[1].Name != "other" {
		t.Fatalf("ChangedSince = %+v, %v", changed, err)
	}
}

func TestSourceIsKept(t *testing.T) {
	s := open(t)
	e, _, err := s.Record(context.Background(), Entry{Name: "p", Revision: 1, Content: "x", Source: "browser"})
	if err != nil || e.Source != "browser" {
		t.Fatalf("%+v %v", e, err)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
