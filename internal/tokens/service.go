package tokens

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// CacheTTL is how long a verified token is trusted without asking the store again: short
// enough that a revocation on any instance takes effect within a second everywhere, long
// enough that a burst of hook events does not read the database once per event.
const CacheTTL = 500 * time.Millisecond

// usedEvery is how often a token's last use is written: the list shows it to the minute, and
// writing it on every request would put a write behind every read.
const usedEvery = time.Minute

// maxCached bounds the cache: past it, entries are dropped (valid secrets are few; this keeps
// a flood of made-up ones from growing memory).
const maxCached = 4096

// Service creates, lists, revokes and verifies tokens over a Store.
type Service struct {
	store Store
	now   func() time.Time
	log   *slog.Logger

	mu     sync.Mutex
	cache  map[string]cached    // by hash
	byName map[string]cached    // by name, for Current
	used   map[string]time.Time // by name: when its last use was last written
}

type cached struct {
	tok Token
	err error // NotFound, for a secret that is no token
	at  time.Time
}

// NewService makes the service. now and log may be nil (time.Now, slog.Default).
func NewService(store Store, now func() time.Time, log *slog.Logger) *Service {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Service{store: store, now: now, log: log, cache: map[string]cached{}, byName: map[string]cached{}, used: map[string]time.Time{}}
}

// Create makes a token named name with scope and, when ttl > 0, an expiry ttl from now. It
// returns the token and its secret, which is shown this once and never stored.
func (s *Service) Create(ctx context.Context, name string, scope Scope, ttl time.Duration) (Token, string, error) {
	if err := CheckName(name); err != nil {
		return Token{}, "", err
	}
	if scope.rank() == 0 {
		return Token{}, "", errs.Errorf(errs.Invalid, "scope %q: want ingest, decide or admin", scope)
	}
	if ttl < 0 {
		return Token{}, "", errs.Errorf(errs.Invalid, "--expires must be positive, not %s", ttl)
	}
	secret, err := NewSecret()
	if err != nil {
		return Token{}, "", err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	t := Token{Name: name, Scope: scope, Hash: HashSecret(secret), Created: now}
	if ttl > 0 {
		t.Expires = now.Add(ttl)
	}
	if err := s.store.Create(ctx, t); err != nil {
		return Token{}, "", err
	}
	return t, secret, nil
}

// List is every token, by name.
func (s *Service) List(ctx context.Context) ([]Token, error) { return s.store.List(ctx) }

// Revoke revokes the named token. This instance forgets it at once; others within CacheTTL.
func (s *Service) Revoke(ctx context.Context, name string) error {
	if err := s.store.Revoke(ctx, name, s.now().UTC()); err != nil {
		return err
	}
	s.mu.Lock()
	for h, c := range s.cache {
		if c.tok.Name == name {
			delete(s.cache, h)
		}
	}
	delete(s.byName, name)
	s.mu.Unlock()
	return nil
}

// Current checks that a token verified earlier still holds: the token named name is still
// the one whose secret hashes to hash (not revoked and then replaced by a new token of the
// same name), not revoked and not expired. It returns the token as stored now, or an
// Unauthorized error saying why not; store failures are returned as they are. A request that
// stays open (a socket, a long poll) asks this, so a revocation on any instance reaches it
// within CacheTTL.
func (s *Service) Current(ctx context.Context, name, hash string) (Token, error) {
	tok, err := s.Named(ctx, name)
	if err != nil {
		return Token{}, err
	}
	if tok.Hash != hash {
		return Token{}, errs.Errorf(errs.Unauthorized, "the token %q was revoked (its name now belongs to another token)", name)
	}
	return tok, nil
}

// Named returns the token named name while it may be used, or an Unauthorized error saying
// why not (none, revoked, expired); store failures are returned as they are. Lookups are
// trusted for CacheTTL, like Verify's.
func (s *Service) Named(ctx context.Context, name string) (Token, error) {
	now := s.now()
	s.mu.Lock()
	c, ok := s.byName[name]
	s.mu.Unlock()
	if !ok || now.Sub(c.at) >= CacheTTL || now.Before(c.at) {
		tok, err := s.store.ByName(ctx, name)
		switch {
		case errs.KindOf(err) == errs.NotFound:
			err = errs.Errorf(errs.Unauthorized, "the token %q no longer exists", name)
		case err != nil:
			return Token{}, err
		}
		c = cached{tok: tok, err: err, at: now}
		s.mu.Lock()
		if len(s.byName) >= maxCached {
			clear(s.byName)
		}
		s.byName[name] = c
		s.mu.Unlock()
	}
	if c.err != nil {
		return Token{}, c.err
	}
	if err := c.tok.Valid(now); err != nil {
		return Token{}, err
	}
	return c.tok, nil
}

// Verify returns the token whose secret this is, or an Unauthorized error saying why not
// (unknown, revoked, expired). Store failures are returned as they are.
func (s *Service) Verify(ctx context.Context, secret string) (Token, error) {
	if !LooksLikeSecret(secret) {
		return Token{}, errs.New(errs.Unauthorized, "not a plandash token")
	}
	hash := HashSecret(secret)
	now := s.now()
	s.mu.Lock()
	c, ok := s.cache[hash]
	s.mu.Unlock()
	if !ok || now.Sub(c.at) >= CacheTTL || now.Before(c.at) {
		tok, err := s.store.ByHash(ctx, hash)
		switch {
		case errs.KindOf(err) == errs.NotFound:
			err = errs.New(errs.Unauthorized, "unknown token: not one made with `plandash tokens create` on this server")
		case err != nil:
			return Token{}, err
		}
		c = cached{tok: tok, err: err, at: now}
		s.mu.Lock()
		if len(s.cache) >= maxCached {
			clear(s.cache)
		}
		s.cache[hash] = c
		s.mu.Unlock()
	}
	if c.err != nil {
		return Token{}, c.err
	}
	if err := c.tok.Valid(now); err != nil {
		return Token{}, err
	}
	s.markUsed(ctx, c.tok.Name, now)
	return c.tok, nil
}

// markUsed writes the token's last use, at most once per usedEvery per instance. A failure is
// only logged: the request it belongs to was fine.
func (s *Service) markUsed(ctx context.Context, name string, now time.Time) {
	s.mu.Lock()
	last, ok := s.used[name]
	due := !ok || now.Sub(last) >= usedEvery || now.Before(last)
	if due {
		if len(s.used) >= maxCached {
			clear(s.used)
		}
		s.used[name] = now
	}
	s.mu.Unlock()
	if !due {
		return
	}
	if err := s.store.Used(context.WithoutCancel(ctx), name, now.UTC()); err != nil {
		s.log.Warn("recording a token's last use", "token", name, "err", err)
	}
}
