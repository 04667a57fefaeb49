package main

import (
	"testing"
	"time"
)

// testWait bounds every wait in this package's tests. It is a failure deadline for a broken or
// hung command, not a measurement.
const testWait = 30 * time.Second

// receive takes the next value from ch, failing the test (instead of hanging it) when nothing
// arrives within testWait.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testWait):
		t.Fatalf("no %s within %s", what, testWait)
	}
	var zero T
	return zero
}
