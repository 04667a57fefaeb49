// Package tokens is plandash's per-agent credentials: named tokens with a scope (ingest, decide,
// admin) and an optional expiry, kept hashed in the database so an admin can create, list and
// revoke them on the server machine while plandash runs. The bearer token plandash has always had
// stays the admin token; these are the ones handed to agents on other machines, one per agent,
// so each can be revoked alone and everything it did is recorded under its name.
package tokens

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/errs"
)

// Scope is what a token may do. Each scope includes the ones before it.
type Scope string

// The scopes, from least to most.
const (
	// Ingest may post plans, agent hooks and ACP relays, submit plans for approval and wait
	// for the decisions on its own requests.
	Ingest Scope = "ingest"
	// Decide may also read the dashboard's API and decide approvals and permission requests.
	Decide Scope = "decide"
	// Admin may do everything the server's own token may.
	Admin Scope = "admin"
)

// rank orders the scopes; 0 is no scope.
func (s Scope) rank() int {
	switch s {
	case Ingest:
		return 1
	case Decide:
		return 2
	case Admin:
		return 3
	}
	return 0
}

// Allows reports whether a token of scope s may do what needs scope need.
func (s Scope) Allows(need Scope) bool { return s.rank() > 0 && s.rank() >= need.rank() }

// ParseScope reads a scope's name.
func ParseScope(v string) (Scope, error) {
	s := Scope(strings.ToLower(strings.TrimSpace(v)))
	if s.rank() == 0 {
		return "", errs.Errorf(errs.Invalid, "scope %q: want ingest, decide or admin", v)
	}
	return s, nil
}

// Prefix starts every secret, so one found in a log or a repository is recognisable (and
// secret scanners can be taught it).
const Prefix = "pdt_"

// secretBytes is the secret's randomness: 256 bits, beyond guessing.
const secretBytes = 32

// MaxNameLen bounds a token's name: it is shown on pages and recorded with every change.
const MaxNameLen = 64

// Token is one per-agent token as stored: never its secret, only the secret's hash.
type Token struct {
	Name     string    `json:"name"`
	Scope    Scope     `json:"scope"`
	Hash     string    `json:"-"` // hex SHA-256 of the secret
	Created  time.Time `json:"created"`
	Expires  time.Time `json:"expires,omitzero"`  // zero: never
	LastUsed time.Time `json:"lastUsed,omitzero"` // zero: never used
	Revoked  time.Time `json:"revoked,omitzero"`  // zero: not revoked
}

// Valid reports why the token may not be used at now, or nil when it may.
func (t Token) Valid(now time.Time) error {
	switch {
	case !t.Revoked.IsZero():
		return errs.Errorf(errs.Unauthorized, "the token %q was revoked", t.Name)
	case !t.Expires.IsZero() && !now.Before(t.Expires):
		return errs.Errorf(errs.Unauthorized, "the token %q expired at %s", t.Name, t.Expires.UTC().Format(time.RFC3339))
	}
	return nil
}

// Label is how changes made with the token are recorded: "token:NAME".
func (t Token) Label() string { return "token:" + t.Name }

// ID is the token's identity: it tells apart two tokens that had the same name (a revoked
// token's name may be given to a new one), which a label cannot. It is derived from the
// secret's hash, one way, so showing or storing it reveals nothing of the hash.
func (t Token) ID() string {
	if t.Hash == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("plandash token id\x00" + t.Hash))
	return hex.EncodeToString(sum[:16])
}

// CheckName refuses a name that would not read well in a list, a log or a page: 1 to
// MaxNameLen letters, digits, '.', '_' and '-', starting with a letter or digit.
func CheckName(name string) error {
	if name == "" || len(name) > MaxNameLen {
		return errs.Errorf(errs.Invalid, "a token's name is 1 to %d characters", MaxNameLen)
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && (c == '.' || c == '_' || c == '-')
		if !ok {
			return errs.Errorf(errs.Invalid, "token name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", name)
		}
	}
	return nil
}

// HashSecret is the stored form of a secret: hex SHA-256. A secret is 256 random bits, so a
// plain hash is enough (no salt or slow hash needed: there is nothing to brute-force).
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// LooksLikeSecret reports whether s has a per-agent token's form (and so is not the admin token).
func LooksLikeSecret(s string) bool { return strings.HasPrefix(s, Prefix) }

// NewSecret makes a fresh secret: the prefix and 32 random bytes, base64url.
func NewSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	return Prefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// Store keeps the tokens. Implementations pass the contract suite in tokenstest.
type Store interface {
	// Create stores a new token. A name in use by a token that is not revoked is a Conflict;
	// a revoked token's name may be taken again (the revoked one is then forgotten).
	Create(ctx context.Context, t Token) error
	// List returns every token, revoked ones included, by name.
	List(ctx context.Context) ([]Token, error)
	// ByHash finds the token whose secret hashes to hash; NotFound when none does.
	ByHash(ctx context.Context, hash string) (Token, error)
	// ByName finds the token named name, revoked or not; NotFound when there is none.
	ByName(ctx context.Context, name string) (Token, error)
	// Revoke marks the named token revoked at at; NotFound when there is none. Revoking a
	// revoked token keeps its first revocation time and is not an error.
	Revoke(ctx context.Context, name string, at time.Time) error
	// Used records that the named token was used at at (a later time only moves it forward).
	Used(ctx context.Context, name string, at time.Time) error
}
