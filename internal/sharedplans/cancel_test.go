package sharedplans

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// holdLock takes the plans lock through a descriptor of its own, as another process (docker-agent)
// holding it would: flock locks belong to open file descriptions, so our writers must wait.
func holdLock(t *testing.T, s *Store) (release func()) {
	t.Helper()
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(s.Dir(), LockFileName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := tryLock(f)
	if err != nil || !ok {
		t.Fatalf("taking the lock: %v %v", ok, err)
	}
	return func() {
		if err := unlockFile(f); err != nil {
			t.Error(err)
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestCancelledWritesNeverWrite starts three mutations while another descriptor holds the lock,
// cancels them, releases the lock, and checks that none of them touched the plan: a caller told
// "cancelled" must be able to rely on nothing having happened.
func TestCancelledWritesNeverWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		// atGrant cancels from inside the writer the moment it is granted the lock, the race a
		// select cannot see; otherwise the test cancels while the writers wait.
		atGrant bool
	}{
		{name: "cancelled while waiting"},
		{name: "cancelled as the lock is granted", atGrant: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t)
			orig := mustWrite(t, s, "p", "original")
			ts := NewToolset(s, nil)

			var (
				cancels []context.CancelFunc
				ctxs    []context.Context
			)
			for range 3 {
				ctx, cancel := context.WithCancel(context.Background())
				t.Cleanup(cancel)
				ctxs, cancels = append(ctxs, ctx), append(cancels, cancel)
			}
			cancelAll := func() {
				for _, c := range cancels {
					c()
				}
			}
			if tc.atGrant {
				s.locked = cancelAll
			}
			release := holdLock(t, s)
			ops := []func(context.Context) error{
				func(ctx context.Context) error {
					_, err := ts.WritePlan(ctx, WritePlanArgs{Name: "p", Content: "cancelled write", Status: "w"})
					return err
				},
				func(ctx context.Context) error {
					_, err := ts.SetPlanStatus(ctx, SetPlanStatusArgs{Name: "p", Status: "cancelled status"})
					return err
				},
				func(ctx context.Context) error {
					_, err := ts.DeletePlan(ctx, DeletePlanArgs{Name: "p"})
					return err
				},
			}
			errs := make([]error, len(ops))
			var wg sync.WaitGroup
			for i, op := range ops {
				wg.Go(func() { errs[i] = op(ctxs[i]) })
			}
			if !tc.atGrant {
				// Give the writers a moment to queue on the lock. The verdict does not depend
				// on it: a writer that starts late sees its context cancelled all the same.
				time.Sleep(20 * time.Millisecond)
				cancelAll()
			}
			release()
			wg.Wait()

			for i, err := range errs {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("op %d: err %v, want context.Canceled", i, err)
				}
			}
			got, ok, err := s.Get(context.Background(), "p")
			if err != nil || !ok {
				t.Fatalf("the plan is gone after cancelled writes: %v %v", ok, err)
			}
			if got != orig {
				t.Fatalf("a cancelled write landed:\n got %+v\nwant %+v", got, orig)
			}
			// The lock and the in-process semaphore were released on every path.
			s.locked = nil
			if p := mustWrite(t, s, "p", "after"); p.Revision != orig.Revision+1 {
				t.Fatalf("write after the cancelled ones: %+v", p)
			}
		})
	}
}
