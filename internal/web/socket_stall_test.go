package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// stallServer serves one socket that writes frames of size bytes, pause apart, through a
// frameWriter with the given timeout for as long as lasting, and reports how the writing ended.
func stallServer(t *testing.T, timeout, lasting time.Duration, size int, pause time.Duration) (url string, ended <-chan error) {
	t.Helper()
	done := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			done <- err
			return
		}
		defer c.CloseNow()
		fw := newFrameWriter(c, timeout)
		defer fw.stop()
		frame := []byte(strings.Repeat("x", size))
		for end := time.Now().Add(lasting); time.Now().Before(end); {
			if err := fw.frame(frame); err != nil {
				done <- err
				return
			}
			time.Sleep(pause)
		}
		done <- nil
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http"), done
}

// TestStalledSocketIsGivenUp: a page that stops reading has its socket closed, which ends the
// write its writer was blocked in.
func TestStalledSocketIsGivenUp(t *testing.T) {
	url, ended := stallServer(t, 100*time.Millisecond, time.Minute, 64<<10, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow() // never read: the server's writes fill the buffers and stall
	select {
	case err := <-ended:
		if err == nil {
			t.Fatal("the writer went on for a minute into a socket nobody read")
		}
	case <-ctx.Done():
		t.Fatal("a stalled write was never given up")
	}
}

// TestReadingSocketIsKept: a page that keeps reading is never taken for stalled, however long
// the socket lives past the timeout and however long it sits idle between frames: each write is
// timed on its own, not the connection. (The frames are small, so no write waits on the reader.)
func TestReadingSocketIsKept(t *testing.T) {
	url, ended := stallServer(t, 100*time.Millisecond, 1500*time.Millisecond, 1<<10, 250*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	go func() {
		for {
			if _, _, err := c.Read(ctx); err != nil {
				return
			}
		}
	}()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("a socket that kept reading was given up: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the writer never finished")
	}
}

// TestWatchArmedOnlyWhenSet: a watch that fires at once (the shortest timeout there is) finds
// the writer whole. Run under the race detector, which saw check read the timer field before
// newFrameWriter had written it.
func TestWatchArmedOnlyWhenSet(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for range 50 {
			fw := newFrameWriter(c, time.Nanosecond)
			time.Sleep(time.Millisecond) // let it fire and re-arm a few times
			fw.stop()
		}
		c.Close(websocket.StatusNormalClosure, "")
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("the socket ended with %v, want a normal close (no write was in flight to give up on)", err)
	}
}
