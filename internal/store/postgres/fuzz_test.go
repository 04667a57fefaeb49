package postgres

import (
	"context"
	"strings"
	"testing"
)

// FuzzOpenURL: the --db URL is outside input. Whatever follows the password in it, Open with a
// context that has already ended fails without connecting anywhere, and its error never
// repeats the password (errors reach the log and the terminal).
func FuzzOpenURL(f *testing.F) {
	for _, s := range []string{
		"127.0.0.1:5432/plandash",
		"db.example:notaport/x",
		"h/db?sslmode=disable&search_path=team",
		"h/db?sslmode=nonsense",
		"[::1]:5432/db?connect_timeout=abc",
		"/db?host=/tmp",
		"",
		"%zz",
	} {
		f.Add(s)
	}
	const password = "pw-4f1d-secret"
	f.Fuzz(func(t *testing.T, rest string) {
		if strings.Contains(rest, password) || strings.Contains(rest, "pool_min_conns") {
			return // the password legitimately appears; or the pool would dial in the background
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		db, err := Open(ctx, "postgres://plandash:"+password+"@"+rest, Options{})
		if err == nil {
			db.Close()
			t.Fatalf("Open(%q) succeeded with an ended context", rest)
		}
		if strings.Contains(err.Error(), password) {
			t.Fatalf("Open(%q) = %v; the error repeats the password", rest, err)
		}
	})
}
