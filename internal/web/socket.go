package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/internal/live"
)

// socket serves GET /ws?topic=…&since=<seq>: the page's live feed.
func (s *Server) socket(w http.ResponseWriter, r *http.Request) {
	topic := r.URL.Query().Get("topic")
	if !s.live.Valid(topic) {
		http.Error(w, "topic must be one of "+strings.Join(s.live.Topics(), ", "), http.StatusBadRequest)
		return
	}
	catchUp := r.URL.Query().Has("since")
	since, err := strconv.ParseUint(r.URL.Query().Get("since"), 10, 64)
	if err != nil && catchUp {
		http.Error(w, "since must be a change number", http.StatusBadRequest)
		return
	}
	// Subscribed before the upgrade is answered: whatever is published once the page holds an
	// open socket reaches it, even a change made the instant the connection opened.
	sub := s.live.Subscribe(topic, topicGate) // every page shows the pending count
	defer sub.Close()
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.cfg.OriginPatterns, Subprotocols: []string{socketProtocol}})
	if err != nil {
		return // Accept has answered (403 for a foreign origin)
	}
	defer c.CloseNow()
	s.metrics.Sockets.Add(1)
	defer s.metrics.Sockets.Add(-1)
	ctx := c.CloseRead(r.Context()) // the page sends nothing; this notices when it goes away

	// Subscribed first, then caught up: nothing published in between is missed, and pages drop
	// any fragment older than what they already have.
	if catchUp {
		frames := s.metrics.SocketFrames.With("catchup")
		if err := s.live.CatchUp(ctx, topic, since, func(b []byte) error { frames.Inc(); return write(ctx, c, b) }); err != nil {
			return
		}
	}
	var buf []hub.Fragment
	for {
		select {
		case <-ctx.Done():
			c.Close(websocket.StatusNormalClosure, "")
			return
		case <-sub.Ready():
		}
		if sub.Overflowed() {
			// Too far behind to catch up fragment by fragment: the page reloads.
			_ = write(ctx, c, live.Resync)
			c.Close(websocket.StatusNormalClosure, "resync")
			return
		}
		buf = sub.Drain(buf[:0])
		for _, f := range buf {
			if err := write(ctx, c, f.Data); err != nil {
				return
			}
			s.countFrame(f, time.Now())
		}
	}
}

func write(ctx context.Context, c *websocket.Conn, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, b)
}
