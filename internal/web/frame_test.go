package web

import (
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/internal/live/livetest"
)

// frame is a socket frame as pages decode it, edits applied.
type frame = livetest.Frame

// pages is the markup each test socket's page holds, for the edits frames make to it.
var pages sync.Map // *websocket.Conn → *livetest.Page

// decodeFrame reads b, a frame socket c received, as c's page would.
func decodeFrame(t testing.TB, c *websocket.Conn, b []byte) frame {
	t.Helper()
	p, _ := pages.LoadOrStore(c, &livetest.Page{})
	f, err := p.(*livetest.Page).Read(b)
	if err != nil {
		t.Fatalf("frame %.300s: %v", b, err)
	}
	return f
}
