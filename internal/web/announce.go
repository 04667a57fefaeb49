package web

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/plandash/plandash/internal/hub"
	"github.com/plandash/plandash/web/templates"
)

// announcer renders changed sessions and publishes them. Writers only mark sessions dirty, so a
// burst of updates to one session costs one render, and rendering never slows ingest.
type announcer struct {
	r   *renderer
	hub *hub.Hub
	log *slog.Logger

	mu    sync.Mutex
	dirty map[string]struct{}
	wake  chan struct{}

	shown map[string]time.Time // sessions on the overview, with their last activity; run's only
}

func newAnnouncer(r *renderer, h *hub.Hub, log *slog.Logger) *announcer {
	return &announcer{r: r, hub: h, log: log, dirty: map[string]struct{}{}, wake: make(chan struct{}, 1), shown: map[string]time.Time{}}
}

// mark queues sessions for announcing; it never blocks.
func (a *announcer) mark(ids []string) {
	a.mu.Lock()
	for _, id := range ids {
		a.dirty[id] = struct{}{}
	}
	a.mu.Unlock()
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

func (a *announcer) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := make([]string, 0, len(a.dirty))
	for id := range a.dirty {
		ids = append(ids, id)
	}
	clear(a.dirty)
	return ids
}

// run announces until ctx ends. A periodic sweep takes sessions that went idle off the overview.
func (a *announcer) run(ctx context.Context) {
	sweep := time.NewTicker(10 * time.Second)
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.wake:
			for _, id := range a.take() {
				a.announce(ctx, id)
			}
		case <-sweep.C:
			a.sweep()
		}
	}
}

func (a *announcer) announce(ctx context.Context, id string) {
	d, err := a.r.svc.Session(ctx, id)
	if err != nil {
		a.log.Error("announce: load session", "session", id, "err", err)
		return
	}
	now := a.r.svc.Now()
	f, shown, err := a.r.overviewFragment(ctx, d, now)
	if err != nil {
		a.log.Error("announce: render", "session", id, "err", err)
		return
	}
	if shown {
		a.shown[id] = d.Session.LastSeen
	} else {
		delete(a.shown, id)
	}
	a.hub.Publish(topicAll, f)
	if topic := sessionTopic(id); a.hub.Subscribers(topic) > 0 {
		a.hub.Publish(topic, a.r.sessionFragments(ctx, d, now)...)
	}
}

func (a *announcer) sweep() {
	now := a.r.svc.Now()
	for id, last := range a.shown {
		if now.Sub(last) >= a.r.svc.Idle() {
			delete(a.shown, id)
			// Idleness is not a stored change, so it has no Seq; pages apply a Seq-less removal always.
			a.hub.Publish(topicAll, encode(templates.GroupID(id), "", 0, nil))
		}
	}
}
