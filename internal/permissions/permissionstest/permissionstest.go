// Package permissionstest states the permissions.Store contract as tests. Every implementation
// runs them:
//
//	func TestPermissionsContract(t *testing.T) { permissionstest.Run(t, openStore) }
package permissionstest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/permissions"
)

// Run runs the contract suite. open returns an empty store that lives until the test ends.
func Run(t *testing.T, open func(t *testing.T) permissions.Store) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, permissions.Store)
	}{
		{"offer, list, resolve", testOfferResolve},
		{"one answer among concurrent answerers, taken once", testAnswerOnce},
		{"an offer is checked against the earlier one", testOfferChecked},
		{"a stream is bound to its first claimant", testClaim},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func request(stream, id string) permissions.Request {
	return permissions.Request{Stream: stream, ID: json.RawMessage(id), SessionID: "s1", Params: json.RawMessage(`{"sessionId":"s1"}`), Offered: t0}
}

// anyOffer lets every offer replace the earlier one.
func anyOffer(*permissions.Request) error { return nil }

func testOfferChecked(t *testing.T, s permissions.Store) {
	ctx := context.Background()
	var seen []*permissions.Request
	firstWins := func(old *permissions.Request) error {
		seen = append(seen, old)
		if old != nil {
			return errs.Errorf(errs.Conflict, "offered already")
		}
		return nil
	}
	first := request("st", "1")
	first.Params = json.RawMessage(`{"sessionId":"s1","title":"rm -rf /"}`)
	if err := s.Offer(ctx, first, firstWins); err != nil {
		t.Fatal(err)
	}
	second := request("st", "1")
	second.Params = json.RawMessage(`{"sessionId":"s1","title":"ls"}`)
	if err := s.Offer(ctx, second, firstWins); errs.KindOf(err) != errs.Conflict {
		t.Fatalf("a refused offer = %v, want check's conflict", err)
	}
	if len(seen) != 2 || seen[0] != nil || seen[1] == nil || string(seen[1].Params) != string(first.Params) {
		t.Fatalf("check saw %+v; want nil, then the first offer", seen)
	}
	l, err := s.List(ctx)
	if err != nil || len(l) != 1 || string(l[0].Params) != string(first.Params) {
		t.Fatalf("List = %+v, %v; want the first offer only", l, err)
	}
}

func testClaim(t *testing.T, s permissions.Store) {
	ctx := context.Background()
	const n = 8
	owners := make(chan string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			got, err := s.Claim(ctx, "st", fmt.Sprint("token-", i), t0)
			if err != nil {
				t.Error(err)
			}
			owners <- got
		})
	}
	wg.Wait()
	close(owners)
	var winner string
	for o := range owners {
		if winner == "" {
			winner = o
		}
		if o != winner || o == "" {
			t.Fatalf("claims returned owners %q and %q; want one owner for everyone", winner, o)
		}
	}
	if got, err := s.Claim(ctx, "st", "late", t0.Add(time.Hour)); err != nil || got != winner {
		t.Fatalf("a later claim = %q, %v; want %q", got, err, winner)
	}
	if got, err := s.Claim(ctx, "st", winner, t0.Add(time.Hour)); err != nil || got != winner {
		t.Fatalf("the owner's own claim = %q, %v", got, err)
	}
	if got, err := s.Claim(ctx, "other", "late", t0); err != nil || got != "late" {
		t.Fatalf("another stream = %q, %v; want its own first claimant", got, err)
	}
}

func testOfferResolve(t *testing.T, s permissions.Store) {
	ctx := context.Background()
	for _, r := range []permissions.Request{request("a", "1"), request("a", `"x"`), request("b", "1")} {
		if err := s.Offer(ctx, r, anyOffer); err != nil {
			t.Fatal(err)
		}
	}
	if l, err := s.List(ctx); err != nil || len(l) != 3 {
		t.Fatalf("List = %d requests, %v; want 3", len(l), err)
	}
	o := &acp.PermissionOutcome{Outcome: "cancelled"}
	if ok, err := s.Resolve(ctx, "a", json.RawMessage("1"), "ide", o, t0.Add(time.Second)); err != nil || !ok {
		t.Fatalf("Resolve = %v, %v", ok, err)
	}
	if ok, err := s.Resolve(ctx, "a", json.RawMessage("1"), "agent", nil, t0.Add(2*time.Second)); err != nil || ok {
		t.Fatalf("Resolve again = %v, %v; want no change", ok, err)
	}
	if ok, err := s.Resolve(ctx, "zz", json.RawMessage("1"), "ide", nil, t0); err != nil || ok {
		t.Fatalf("Resolve of an unknown request = %v, %v", ok, err)
	}
	l, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range l {
		if r.Stream == "a" && string(r.ID) == "1" && (r.ResolvedBy != "ide" || r.Outcome == nil || !r.Resolved.Equal(t0.Add(time.Second))) {
			t.Fatalf("resolved request = %+v", r)
		}
	}
	// Offered again (a proxy reconnecting): open once more.
	if err := s.Offer(ctx, request("a", "1"), anyOffer); err != nil {
		t.Fatal(err)
	}
	l, _ = s.List(ctx)
	for _, r := range l {
		if r.Stream == "a" && string(r.ID) == "1" && r.ResolvedBy != "" {
			t.Fatalf("re-offered request still resolved: %+v", r)
		}
	}
}

func testAnswerOnce(t *testing.T, s permissions.Store) {
	ctx := context.Background()
	if err := s.Offer(ctx, request("st", "7"), anyOffer); err != nil {
		t.Fatal(err)
	}
	check := func(p *permissions.Request) error {
		switch {
		case p == nil:
			return errs.Errorf(errs.NotFound, "none")
		case p.Answered:
			return errs.Errorf(errs.Conflict, "answered")
		}
		return nil
	}
	if err := s.Answer(ctx, "st", json.RawMessage("8"), permissions.Answer{ID: json.RawMessage("8")}, check); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("Answer of an unknown request = %v, want NotFound from check", err)
	}
	const n = 8
	results := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results <- s.Answer(ctx, "st", json.RawMessage("7"), permissions.Answer{ID: json.RawMessage("7"), By: fmt.Sprint(i)}, check)
		})
	}
	wg.Wait()
	close(results)
	wins := 0
	for err := range results {
		switch {
		case err == nil:
			wins++
		case errs.KindOf(err) != errs.Conflict:
			t.Fatalf("Answer: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d answers won, want one", wins)
	}
	got, err := s.Take(ctx, "st")
	if err != nil || len(got) != 1 || string(got[0].ID) != "7" {
		t.Fatalf("Take = %+v, %v; want the one answer", got, err)
	}
	if got, err := s.Take(ctx, "st"); err != nil || len(got) != 0 {
		t.Fatalf("Take again = %+v, %v; want nothing", got, err)
	}
	l, err := s.List(ctx)
	if err != nil || len(l) != 1 || !l[0].Answered {
		t.Fatalf("List = %+v, %v; want the request answered", l, err)
	}
}
