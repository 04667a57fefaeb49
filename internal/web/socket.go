package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/plandash/plandash/internal/hub"
)

// maxCatchUp is how many changed sessions a reconnecting page is sent before it is told to
// reload instead: past that, one page load is cheaper than many fragments.
const maxCatchUp = 200

// socket serves GET /ws?topic=all|session:<id>&since=<seq>: the page's live feed.
func (s *Server) socket(w http.ResponseWriter, r *http.Request) {
	topic := r.URL.Query().Get("topic")
	sessionID, isSession := strings.CutPrefix(topic, "session:")
	if topic != topicAll && !isSharedTopic(topic) && !isGateTopic(topic) && (!isSession || sessionID == "") {
		http.Error(w, `topic must be "all", "session:<id>", "shared", "shared:<name>", "approvals" or "approval:<id>"`, http.StatusBadRequest)
		return
	}
	catchUp := r.URL.Query().Has("since")
	since, err := strconv.ParseUint(r.URL.Query().Get("since"), 10, 64)
	if err != nil && catchUp {
		http.Error(w, "since must be a change number", http.StatusBadRequest)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.cfg.OriginPatterns, Subprotocols: []string{socketProtocol}})
	if err != nil {
		return // Accept has answered (403 for a foreign origin)
	}
	defer c.CloseNow()
	ctx := c.CloseRead(r.Context()) // the page sends nothing; this notices when it goes away

	sub := s.hub.Subscribe(topic, topicGate) // every page shows the gate's pending count
	defer sub.Close()
	// Subscribed first, then caught up: nothing published in between is missed, and pages drop
	// any fragment older than what they already have.
	if catchUp {
		if err := s.catchUp(ctx, c, topic, sessionID, since); err != nil {
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
			_ = write(ctx, c, []byte(`{"t":"resync"}`))
			c.Close(websocket.StatusNormalClosure, "resync")
			return
		}
		buf = sub.Drain(buf[:0])
		for _, f := range buf {
			if err := write(ctx, c, f.Data); err != nil {
				return
			}
		}
	}
}

func write(ctx context.Context, c *websocket.Conn, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, b)
}

// catchUp sends what changed after since for this topic. since=0 (a page rendered from an
// empty store) means everything.
func (s *Server) catchUp(ctx context.Context, c *websocket.Conn, topic, sessionID string, since uint64) error {
	if isSharedTopic(topic) {
		return s.sharedCatchUp(ctx, c, topic, since)
	}
	if isGateTopic(topic) {
		return s.gateCatchUp(ctx, c, topic, since)
	}
	ids, _, err := s.svc.ChangedSince(ctx, since)
	if err != nil {
		return err
	}
	if len(ids) > maxCatchUp {
		return write(ctx, c, []byte(`{"t":"resync"}`))
	}
	now := s.svc.Now()
	for _, id := range ids {
		if topic != topicAll && id != sessionID {
			continue
		}
		d, err := s.svc.Session(ctx, id)
		if err != nil {
			continue
		}
		var frags []hub.Fragment
		if topic == topicAll {
			f, _, err := s.render.overviewFragment(ctx, d, now)
			if err != nil {
				return err
			}
			frags = append(frags, f)
		} else {
			frags = s.render.sessionFragments(ctx, d, now)
		}
		for _, f := range frags {
			if err := write(ctx, c, f.Data); err != nil {
				return err
			}
		}
	}
	return nil
}
