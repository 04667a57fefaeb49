package waitstest

import (
	"context"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/waits"
)

// patience is how long the Await helpers give a real agent.
const patience = 2 * time.Minute

// AwaitOpen polls the kept waits until one of kind that ok accepts (nil: any) is open, and
// returns it.
func AwaitOpen(t testing.TB, a *waits.Asked, kind waits.Kind, ok func(waits.Record) bool) waits.Record {
	t.Helper()
	var last []waits.Record
	for deadline := time.Now().Add(patience); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		open, err := a.Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range open {
			if r.Kind == kind && (ok == nil || ok(r)) {
				return r
			}
		}
		last = open
	}
	t.Fatalf("no open %s wait; open: %+v", kind, last)
	return waits.Record{}
}

// AwaitEnded waits until record id ended, and returns it.
func AwaitEnded(t testing.TB, a *waits.Asked, id string) waits.Record {
	t.Helper()
	r, err := a.Wait(context.Background(), id, patience)
	if err != nil || r.Open() {
		t.Fatalf("wait %s did not end: %+v %v", id, r, err)
	}
	return r
}

// AwaitWentOn waits until the input wait in ended or was begun again by a later turn, and
// returns it. A session keeps one input wait: a quick next turn can end it and open it again
// between two reads, and then only its later Since tells that the first one ended.
func AwaitWentOn(t testing.TB, a *waits.Asked, in waits.Record) waits.Record {
	t.Helper()
	for deadline := time.Now().Add(patience); time.Now().Before(deadline); {
		r, err := a.Wait(context.Background(), in.ID, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Open() || r.Since.After(in.Since) {
			return r
		}
	}
	t.Fatalf("input wait %s neither ended nor began again", in.ID)
	return waits.Record{}
}
