package sharedplans_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/sharedplans"
)

// writeFiles writes n plans into dir as docker-agent would, straight to disk: p0000, p0001, …,
// each updated a second after the one before.
func writeFiles(t *testing.T, dir string, n int) {
	t.Helper()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		p := sharedplans.Plan{Name: fmt.Sprintf("p%04d", i), Title: fmt.Sprintf("Plan %d", i), Author: "agent", Status: "draft",
			Content: "# Plan\n- [ ] step", Revision: 1, UpdatedAt: t0.Add(time.Duration(i) * time.Second).Format(time.RFC3339)}
		b, err := sharedplans.EncodePlan(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p.Name+".json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// walkList reads every page of the list, limit plans at a time.
func walkList(t *testing.T, svc *sharedplans.Service, limit int) (names, warnings []string, total int) {
	t.Helper()
	after := ""
	for n := 0; ; n++ {
		lp, err := svc.ListPage(context.Background(), after, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(lp.Plans) > limit || n > 0 && len(lp.Warnings) > 0 {
			t.Fatalf("page %d: %d plans, %d warnings", n, len(lp.Plans), len(lp.Warnings))
		}
		for _, p := range lp.Plans {
			names = append(names, p.Name)
		}
		warnings = append(warnings, lp.Warnings...)
		total = lp.Total
		if lp.Next == "" {
			return names, warnings, total
		}
		after = lp.Next
	}
}

// TestIndexFollowsTheDirectory: with 2,000 plan files (and a corrupt one), the paged list the
// watcher's index serves is the one a scan of the directory gives, and it follows changes any
// process makes — a new plan, a changed one, a removed one, one that turns corrupt.
func TestIndexFollowsTheDirectory(t *testing.T) {
	svc, _, dir := newService(t)
	writeFiles(t, dir, 2000)
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	scan := sharedplans.NewService(sharedplans.New(dir), nil, sharedplans.ServiceConfig{}) // never runs: lists scan
	run(t, svc)
	for deadline := time.Now().Add(watchTimeout); !svc.Indexed(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the index never went live")
		}
	}
	if scan.Indexed() {
		t.Fatal("a service whose watcher does not run claims an index")
	}

	names, warnings, total := walkList(t, svc, 150)
	want, wantWarnings, wantTotal := walkList(t, scan, 150)
	if !slices.IsSorted(names) || len(names) != 2001 || total != 2001 {
		t.Fatalf("index lists %d plans (total %d), sorted %v; want 2,001", len(names), total, slices.IsSorted(names))
	}
	if !reflect.DeepEqual(names, want) || total != wantTotal || len(warnings) != 1 || len(wantWarnings) != 1 {
		t.Fatalf("index and scan differ: %d vs %d plans, warnings %q vs %q", len(names), len(want), warnings, wantWarnings)
	}

	// Changes by another process.
	other := sharedplans.New(dir)
	title, content := "Renamed", "changed"
	if _, err := other.Upsert(context.Background(), sharedplans.UpsertRequest{Name: "p0001", Title: &title, Content: &content}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Delete(context.Background(), "p0002", nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p0003.json"), []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	barrier(t, svc, "zz-last") // the watcher handles events in order: everything above is in
	var lp sharedplans.ListPage
	deadline := time.Now().Add(watchTimeout)
	for {
		var err error
		if lp, err = svc.ListPage(context.Background(), "p0000", 3); err != nil {
			t.Fatal(err)
		}
		if len(lp.Plans) == 3 && lp.Plans[0].Title == "Renamed" && lp.Plans[1].Name == "p0004" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := []string{lp.Plans[0].Name, lp.Plans[1].Name, lp.Plans[2].Name}; !reflect.DeepEqual(got, []string{"p0001", "p0004", "p0005"}) || lp.Plans[0].Title != "Renamed" {
		t.Fatalf("after changes the index lists %v (%q)", got, lp.Plans[0].Title)
	}
	names, warnings, total = walkList(t, svc, 500)
	want, wantWarnings, wantTotal = walkList(t, scan, 500)
	if !reflect.DeepEqual(names, want) || total != wantTotal || len(warnings) != 2 || len(wantWarnings) != 2 {
		t.Fatalf("after changes: total %d vs scan %d, warnings %q vs %q", total, wantTotal, warnings, wantWarnings)
	}
	top, n, err := svc.Strip(context.Background(), 3)
	if err != nil || n != wantTotal || len(top) != 3 || top[0].Name != "zz-last" && top[0].Name != "p0001" {
		t.Fatalf("Strip = %v, %d, %v", top, n, err)
	}
	scanTop, _, err := scan.Strip(context.Background(), 3)
	if err != nil || !reflect.DeepEqual(top, scanTop) {
		t.Fatalf("Strip from the index %v, from a scan %v (%v)", top, scanTop, err)
	}
}
