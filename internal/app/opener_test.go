package app

import (
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plandash/plandash/internal/notify"
)

// TestBrowserOpenerOpensOneTab: with no page open the first wait opens its page (with the
// token, once); later waits open nothing while that tab has not connected, nor while a page is
// open; a minute without any page lets the next wait open again.
func TestBrowserOpenerOpensOneTab(t *testing.T) {
	var mu sync.Mutex
	var opened []string
	done := make(chan struct{}, 10)
	var pages atomic.Int64
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o := &browserOpener{
		open: func(u string) error {
			mu.Lock()
			opened = append(opened, u)
			mu.Unlock()
			done <- struct{}{}
			return nil
		},
		pages: pages.Load, base: func() string { return "http://127.0.0.1:7420" }, token: "tok",
		now: func() time.Time { return now }, log: slog.New(slog.DiscardHandler),
	}
	o.began(notify.Wait{ID: "plan-a", URL: "/approvals/a"})
	<-done
	o.began(notify.Wait{ID: "plan-b", URL: "/approvals/b"}) // the tab has not connected yet
	pages.Store(1)
	o.began(notify.Wait{ID: "plan-c", URL: "/approvals/c"}) // a page is open: it shows the wait
	pages.Store(0)
	now = now.Add(2 * time.Minute)
	o.began(notify.Wait{ID: "plan-d", URL: "/approvals/d"}) // the page closed: open again
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(opened) != 2 || opened[0] != "http://127.0.0.1:7420/approvals/a?token=tok" || !strings.HasSuffix(opened[1], "/approvals/d?token=tok") {
		t.Fatalf("opened %v", opened)
	}
}
