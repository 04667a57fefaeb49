package tokens

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadOrCreateServerToken: the first call makes a token only its owner can read, later calls
// return it, and a file that cannot be read is an error, not a new token.
func TestLoadOrCreateServerToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	first, err := LoadOrCreateServerToken(dir)
	if err != nil || len(first) != 48 {
		t.Fatalf("first = %q, %v", first, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "token")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v", fi, err)
	}
	if again, err := LoadOrCreateServerToken(dir); err != nil || again != first {
		t.Fatalf("again = %q, %v; want %q", again, err, first)
	}
	bad := t.TempDir()
	if err := os.Mkdir(filepath.Join(bad, "token"), 0o700); err != nil {
		t.Fatal(err)
	}
	if tok, err := LoadOrCreateServerToken(bad); err == nil {
		t.Fatalf("a token %q from a directory named token", tok)
	}
}
