package client

import (
	"net/url"
	"os"
	"testing"
)

// The address file is read from disk, where anything may be written. Whatever it holds,
// ReadAddr returns either nothing or an http(s) URL with a host, so a token is never sent by
// another scheme.
func FuzzReadAddr(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:7420\n", "https://x.example", "file:///etc/passwd", "javascript:alert(1)", "", "http://", "http://[::1]:80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(AddrFile(dir), b, 0o600); err != nil {
			t.Fatal(err)
		}
		got := ReadAddr(dir)
		if got == "" {
			return
		}
		u, err := url.Parse(got)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Errorf("ReadAddr(%q) = %q, not an http(s) URL with a host", b, got)
		}
	})
}
