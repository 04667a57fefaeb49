package tokens

import (
	"strings"
	"testing"
	"time"
)

func TestScopes(t *testing.T) {
	for _, tc := range []struct {
		have, need Scope
		ok         bool
	}{
		{Ingest, Ingest, true}, {Ingest, Decide, false}, {Ingest, Admin, false},
		{Decide, Ingest, true}, {Decide, Decide, true}, {Decide, Admin, false},
		{Admin, Ingest, true}, {Admin, Decide, true}, {Admin, Admin, true},
		{"", Ingest, false}, {"root", Ingest, false},
	} {
		if got := tc.have.Allows(tc.need); got != tc.ok {
			t.Errorf("%q allows %q = %v, want %v", tc.have, tc.need, got, tc.ok)
		}
	}
	for in, want := range map[string]Scope{"ingest": Ingest, " Decide ": Decide, "ADMIN": Admin} {
		if got, err := ParseScope(in); err != nil || got != want {
			t.Errorf("ParseScope(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "root", "ingest,decide"} {
		if _, err := ParseScope(bad); err == nil {
			t.Errorf("ParseScope(%q) took it", bad)
		}
	}
}

func TestValid(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		tok  Token
		ok   bool
	}{
		{"forever", Token{Name: "a"}, true},
		{"not yet expired", Token{Name: "a", Expires: now.Add(time.Second)}, true},
		{"expires now", Token{Name: "a", Expires: now}, false},
		{"revoked", Token{Name: "a", Revoked: now.Add(-time.Hour)}, false},
	} {
		if err := tc.tok.Valid(now); (err == nil) != tc.ok {
			t.Errorf("%s: Valid = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestSecrets(t *testing.T) {
	a, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if a == b || !LooksLikeSecret(a) || len(a) != len(Prefix)+43 {
		t.Fatalf("secrets %q and %q: want two different pdt_ secrets of 32 bytes", a, b)
	}
	if h := HashSecret(a); len(h) != 64 || h == HashSecret(b) || strings.Contains(h, a) {
		t.Fatalf("hash %q", h)
	}
}

// FuzzCheckName: a name it takes is short and made only of the characters a list, a log line
// and a page show as they are.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"ci-runner", "alice.laptop", "", "-x", "a b", "ä", strings.Repeat("a", 65), "a\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name) != nil {
			return
		}
		if name == "" || len(name) > MaxNameLen {
			t.Fatalf("took %q: length %d", name, len(name))
		}
		for _, c := range name {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-", c)) {
				t.Fatalf("took %q with %q", name, c)
			}
		}
		if strings.ContainsAny(name[:1], "._-") {
			t.Fatalf("took %q starting with punctuation", name)
		}
	})
}
