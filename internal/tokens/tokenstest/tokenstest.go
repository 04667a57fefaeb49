// Package tokenstest states the tokens.Store contract as tests, and tests the Service over each
// implementation. Every implementation runs them:
//
//	func TestTokensContract(t *testing.T) { tokenstest.Run(t, openStore) }
package tokenstest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/errs"
	"github.com/plandash/plandash/internal/tokens"
)

// Run runs the contract suite. open returns an empty store that lives until the test ends.
func Run(t *testing.T, open func(t *testing.T) tokens.Store) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, tokens.Store)
	}{
		{"create, list, find by hash", testCreateList},
		{"a name is taken until revoked", testNames},
		{"revoke", testRevoke},
		{"last use moves forward", testUsed},
		{"service: verify, expire, revoke", testService},
		{"service: concurrent creates of one name, one wins", testConcurrentCreate},
		{"service: a token still current, by identity", testCurrent},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

var t0 = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

func token(name string, scope tokens.Scope) tokens.Token {
	return tokens.Token{Name: name, Scope: scope, Hash: tokens.HashSecret("pdt_" + name), Created: t0}
}

// same compares tokens field by field, times by instant (a store may hand back another
// location).
func same(a, b tokens.Token) bool {
	return a.Name == b.Name && a.Scope == b.Scope && a.Hash == b.Hash && a.Created.Equal(b.Created) &&
		a.Expires.Equal(b.Expires) && a.LastUsed.Equal(b.LastUsed) && a.Revoked.Equal(b.Revoked)
}

func kind(t *testing.T, err error, want errs.Kind, what string) {
	t.Helper()
	if got := errs.KindOf(err); err == nil || got != want {
		t.Fatalf("%s: err %v (kind %v), want kind %v", what, err, got, want)
	}
}

func testCreateList(t *testing.T, s tokens.Store) {
	ctx := context.Background()
	if got, err := s.List(ctx); err != nil || len(got) != 0 {
		t.Fatalf("empty store lists %v, %v", got, err)
	}
	b := token("ci-runner", tokens.Ingest)
	b.Expires = t0.Add(24 * time.Hour)
	a := token("alice.laptop", tokens.Decide)
	for _, tok := range []tokens.Token{b, a} {
		if err := s.Create(ctx, tok); err != nil {
			t.Fatalf("create %s: %v", tok.Name, err)
		}
	}
	got, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !same(got[0], a) || !same(got[1], b) {
		t.Fatalf("list = %+v, want %+v then %+v (by name, every field back)", got, a, b)
	}
	found, err := s.ByHash(ctx, b.Hash)
	if err != nil || !same(found, b) {
		t.Fatalf("by hash = %+v, %v; want %+v", found, err, b)
	}
	_, err = s.ByHash(ctx, tokens.HashSecret("pdt_nobody"))
	kind(t, err, errs.NotFound, "unknown hash")
	found, err = s.ByName(ctx, a.Name)
	if err != nil || !same(found, a) {
		t.Fatalf("by name = %+v, %v; want %+v", found, err, a)
	}
	_, err = s.ByName(ctx, "nobody")
	kind(t, err, errs.NotFound, "unknown name")
}

func testNames(t *testing.T, s tokens.Store) {
	ctx := context.Background()
	if err := s.Create(ctx, token("bot", tokens.Ingest)); err != nil {
		t.Fatal(err)
	}
	again := token("bot", tokens.Admin)
	again.Hash = tokens.HashSecret("pdt_other")
	kind(t, s.Create(ctx, again), errs.Conflict, "a second token named bot")
	if err := s.Revoke(ctx, "bot", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, again); err != nil {
		t.Fatalf("a revoked token's name is free again: %v", err)
	}
	got, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Scope != tokens.Admin || !got[0].Revoked.IsZero() {
		t.Fatalf("after taking the name again: %+v, want the new admin token alone", got)
	}
	if _, err := s.ByHash(ctx, token("bot", tokens.Ingest).Hash); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("the revoked secret still finds a token: %v", err)
	}
}

func testRevoke(t *testing.T, s tokens.Store) {
	ctx := context.Background()
	kind(t, s.Revoke(ctx, "ghost", t0), errs.NotFound, "revoking an unknown token")
	tok := token("bot", tokens.Ingest)
	if err := s.Create(ctx, tok); err != nil {
		t.Fatal(err)
	}
	first, second := t0.Add(time.Hour), t0.Add(2*time.Hour)
	for _, at := range []time.Time{first, second} {
		if err := s.Revoke(ctx, "bot", at); err != nil {
			t.Fatalf("revoke at %v: %v", at, err)
		}
	}
	got, err := s.ByHash(ctx, tok.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Revoked.Equal(first) {
		t.Fatalf("revoked = %v, want the first revocation %v", got.Revoked, first)
	}
}

func testUsed(t *testing.T, s tokens.Store) {
	ctx := context.Background()
	tok := token("bot", tokens.Ingest)
	if err := s.Create(ctx, tok); err != nil {
		t.Fatal(err)
	}
	later, earlier := t0.Add(time.Hour), t0.Add(time.Minute)
	for _, at := range []time.Time{later, earlier} {
		if err := s.Used(ctx, "bot", at); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ByHash(ctx, tok.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if !got.LastUsed.Equal(later) {
		t.Fatalf("last used = %v, want %v (an earlier write must not move it back)", got.LastUsed, later)
	}
}

// clock is a settable time for the service.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func testService(t *testing.T, s tokens.Store) {
	ctx := context.Background()
	clk := &clock{now: t0}
	a := tokens.NewService(s, clk.Now, nil)
	b := tokens.NewService(s, clk.Now, nil) // another instance on the same database
	tok, secret, err := a.Create(ctx, "ci", tokens.Ingest, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !tokens.LooksLikeSecret(secret) || len(secret) < 40 || tok.Hash != tokens.HashSecret(secret) {
		t.Fatalf("secret %q / token %+v: want a pdt_ secret of 256 bits whose hash is stored", secret, tok)
	}
	for _, bad := range []string{"", "pdt_", "pdt_" + secret[4:] + "x", "not-a-token"} {
		_, err := a.Verify(ctx, bad)
		kind(t, err, errs.Unauthorized, "verify "+bad)
	}
	for _, svc := range []*tokens.Service{a, b} {
		got, err := svc.Verify(ctx, secret)
		if err != nil || got.Name != "ci" || got.Scope != tokens.Ingest {
			t.Fatalf("verify = %+v, %v", got, err)
		}
	}
	list, err := a.List(ctx)
	if err != nil || len(list) != 1 || !list[0].LastUsed.Equal(t0) {
		t.Fatalf("after use, list = %+v, %v; want last used %v", list, err, t0)
	}
	if err := a.Revoke(ctx, "ci"); err != nil {
		t.Fatal(err)
	}
	_, err = a.Verify(ctx, secret)
	kind(t, err, errs.Unauthorized, "the revoking instance, at once")
	clk.Add(tokens.CacheTTL)
	_, err = b.Verify(ctx, secret)
	kind(t, err, errs.Unauthorized, "another instance, after the cache's TTL")

	_, secret2, err := a.Create(ctx, "short", tokens.Decide, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Verify(ctx, secret2); err != nil {
		t.Fatal(err)
	}
	clk.Add(time.Minute)
	_, err = a.Verify(ctx, secret2)
	kind(t, err, errs.Unauthorized, "an expired token, even cached")

	_, _, err = a.Create(ctx, "bad name", tokens.Ingest, 0)
	kind(t, err, errs.Invalid, "a name with a space")
	_, _, err = a.Create(ctx, "x", "root", 0)
	kind(t, err, errs.Invalid, "an unknown scope")
}

func testConcurrentCreate(t *testing.T, s tokens.Store) {
	ctx := context.Background()
	svc := tokens.NewService(s, nil, nil)
	const n = 8
	results := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, _, err := svc.Create(ctx, "race", tokens.Ingest, 0)
			results <- err
		})
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		switch errs.KindOf(err) {
		case errs.Conflict:
		default:
			if err != nil {
				t.Errorf("create: %v", err)
				continue
			}
			won++
		}
	}
	if won != 1 {
		t.Fatalf("%d creates of one name succeeded, want 1", won)
	}
}

// testCurrent: Current holds for the token as verified, and fails, on every instance within
// CacheTTL, once it is revoked, replaced by a new token of the same name, or expired.
func testCurrent(t *testing.T, s tokens.Store) {
	ctx := context.Background()
	clk := &clock{now: t0}
	a := tokens.NewService(s, clk.Now, nil)
	b := tokens.NewService(s, clk.Now, nil) // another instance on the same database
	old, _, err := a.Create(ctx, "a", tokens.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range []*tokens.Service{a, b} {
		if got, err := svc.Current(ctx, "a", old.Hash); err != nil || got.Hash != old.Hash {
			t.Fatalf("current = %+v, %v", got, err)
		}
	}
	if err := a.Revoke(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	_, err = a.Current(ctx, "a", old.Hash)
	kind(t, err, errs.Unauthorized, "revoked, on the revoking instance at once")
	clk.Add(tokens.CacheTTL)
	_, err = b.Current(ctx, "a", old.Hash)
	kind(t, err, errs.Unauthorized, "revoked, on another instance after the TTL")
	fresh, _, err := a.Create(ctx, "a", tokens.Admin, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if old.ID() == fresh.ID() || old.ID() == "" {
		t.Fatalf("two tokens named a share the identity %q", old.ID())
	}
	clk.Add(tokens.CacheTTL)
	for _, svc := range []*tokens.Service{a, b} {
		_, err = svc.Current(ctx, "a", old.Hash)
		kind(t, err, errs.Unauthorized, "the old token, its name taken by a new one")
		if _, err := svc.Current(ctx, "a", fresh.Hash); err != nil {
			t.Fatalf("the new token: %v", err)
		}
	}
	clk.Add(time.Minute)
	_, err = a.Current(ctx, "a", fresh.Hash)
	kind(t, err, errs.Unauthorized, "expired")
	_, err = a.Current(ctx, "nobody", fresh.Hash)
	kind(t, err, errs.Unauthorized, "no such token")
}
