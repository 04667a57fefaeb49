package sharedplans

import (
	"testing"
	"time"
)

// recvWithin takes the next value from ch, failing the test instead of hanging it when nothing
// arrives within d (a failure deadline, not a measurement).
func recvWithin[T any](t testing.TB, ch <-chan T, d time.Duration, what string) T {
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
