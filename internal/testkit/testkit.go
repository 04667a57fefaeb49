// Package testkit holds the helpers tests of many packages share, so each is written once. It
// imports the standard library only, so any package's own tests can use it. Only tests import it.
package testkit

import (
	"testing"
	"time"
)

// Recv takes the next value from ch, failing the test instead of hanging it when nothing
// arrives within d (a failure deadline, not a measurement).
func Recv[T any](t testing.TB, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("no %s within %s", what, d)
	}
	var zero T
	return zero
}
