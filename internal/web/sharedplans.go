package web

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/plandash/plandash/internal/live"
	"github.com/plandash/plandash/internal/mcpserver"
	"github.com/plandash/plandash/internal/sharedplans"
)

// sharedState is the shared-plans part of the Server: docker-agent's plans directory, the
// tools over it for remote callers, and plandash's history of every state it has seen.
type sharedState struct {
	sharedStore *sharedplans.Store
	sharedTools *sharedplans.Toolset // file tools confined to cfg.AllowRoots
	sharedHist  sharedplans.HistoryStore

	// sharedMu serializes observations (read the file, record, publish), so history and the
	// fragments pages receive follow the order of states on disk whoever noticed them first.
	sharedMu  sync.Mutex
	sharedBad map[string]string // plans whose file is unreadable now, with why; under sharedMu

	// sharedWait bounds how long a write waits for the plans lock, as docker-agent's own TUI
	// does, so a stuck process holding .plans.lock never hangs a request.
	sharedWait time.Duration

	sharedLife struct {
		sync.Mutex
		closed bool
		done   chan struct{} // closed when runSharedPlans returns; nil if it never ran
	}
}

// openSharedPlans opens the plans directory (nothing is created until the first write) and
// takes the history from the database.
func (s *Server) openSharedPlans(ctx context.Context) error {
	s.sharedStore = sharedplans.New(s.cfg.PlansDir)
	s.sharedTools = sharedplans.NewToolset(s.sharedStore, s.render.files.Policy()) // nil: the file tools refuse every path
	s.sharedHist = s.db.SharedHistory()
	s.sharedBad = map[string]string{}
	s.sharedWait = 5 * time.Second
	return nil
}

// closeSharedPlans waits for the watcher to stop, so nothing records history once the database
// closes. It returns no error since the history is the database's to close.
func (s *Server) closeSharedPlans() error {
	s.sharedLife.Lock()
	s.sharedLife.closed = true
	done := s.sharedLife.done
	s.sharedLife.Unlock()
	if done != nil {
		<-done
	}
	return nil
}

// runSharedPlans watches the plans directory until ctx ends: every change, by any process, is
// recorded in the history and sent to the pages showing it. Plans changed while plandash was
// not running are caught up once the watch is live.
func (s *Server) runSharedPlans(ctx context.Context) {
	s.sharedLife.Lock()
	if s.sharedLife.closed {
		s.sharedLife.Unlock()
		return
	}
	s.sharedLife.done = make(chan struct{})
	defer close(s.sharedLife.done)
	s.sharedLife.Unlock()

	dir := s.sharedStore.Dir()
	// Like docker-agent, plandash does not create the directory just by looking at it: wait for
	// it to appear (a write from the browser or the API creates it and is observed directly).
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
	w, err := s.sharedStore.Watch(ctx, func(ev sharedplans.Event) { s.observeShared(ctx, ev.Name, "disk") })
	if err != nil {
		s.log.Error("shared plans: cannot watch the plans directory; the dashboard will not see changes", "dir", dir, "err", err)
		return
	}
	if err := s.syncShared(ctx); err != nil && ctx.Err() == nil {
		s.log.Error("shared plans: catching up with the plans directory", "dir", dir, "err", err)
	}
	w.Wait()
}

// syncShared records every plan whose state on disk differs from the history's newest entry,
// and the removal of every plan the history still believes exists.
func (s *Server) syncShared(ctx context.Context) error {
	known, err := s.sharedHist.Current(ctx)
	if err != nil {
		return err
	}
	list, err := s.sharedStore.List(ctx)
	if err != nil {
		return err
	}
	for _, p := range list.Plans {
		e, ok := known[p.Name]
		delete(known, p.Name)
		if ok && e.Revision == p.Revision && e.UpdatedAt == p.UpdatedAt && e.Title == p.Title &&
			e.Author == p.Author && e.Status == p.Status {
			continue
		}
		s.observeShared(ctx, p.Name, "disk")
	}
	for name := range known {
		s.observeShared(ctx, name, "disk")
	}
	return ctx.Err()
}

// observeShared reads a plan from disk and, if its state is new, records it and publishes it.
// source says who caused the change ("disk" for anything seen by the watcher).
func (s *Server) observeShared(ctx context.Context, name, source string) {
	if sharedplans.ValidateName(name) != nil {
		return // a *.json file with a name docker-agent could never address: List warns of it
	}
	s.sharedMu.Lock()
	defer s.sharedMu.Unlock()
	p, ok, err := s.sharedStore.Get(ctx, name)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		if s.sharedBad[name] != err.Error() {
			s.sharedBad[name] = err.Error()
			s.live.Announce(live.Change{Kind: changeShared, ID: name})
		}
		return
	}
	_, wasBad := s.sharedBad[name]
	delete(s.sharedBad, name)
	e := sharedplans.HistoryEntry{Name: name, Removed: !ok, Source: source}
	if ok {
		e = sharedplans.HistoryEntry{Name: name, Revision: p.Revision, Title: p.Title, Author: p.Author, Status: p.Status,
			Content: p.Content, UpdatedAt: p.UpdatedAt, Source: source}
	}
	_, added, err := s.sharedHist.Record(ctx, e)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
			s.log.Error("shared plans: recording history", "plan", name, "err", err)
		}
		return
	}
	if added || wasBad {
		s.live.Announce(live.Change{Kind: changeShared, ID: name})
	}
}

// sharedPlanPages adds the pages: the list, a plan with its history, editing and preview.
//
// Not here yet: "request approval" (send a shared plan to the gate and set its status from the
// decision). It waits for the approval gate's API and belongs here as POST
// /shared/{name}/approval, with a button on the plan page.
func (s *Server) sharedPlanPages(r chi.Router) {
	r.Get("/shared", s.sharedListPage)
	r.Get("/shared/-/new", s.sharedNewPage)
	r.Post("/shared/-/new", s.sharedCreateForm)
	r.Post("/shared/-/preview", s.sharedPreview)
	r.Get("/shared/{name}", s.sharedPlanPage)
	r.Post("/shared/{name}", s.sharedSaveForm)
	r.Post("/shared/{name}/delete", s.sharedDeleteForm)
}

// sharedPlanAPI adds the JSON API under /api/v1/shared-plans.
func (s *Server) sharedPlanAPI(r chi.Router) {
	r.Route("/api/v1/shared-plans", func(r chi.Router) {
		r.Get("/", s.apiSharedList)
		r.Post("/", s.apiSharedCreate)
		r.Post("/-/tools/{tool}", s.apiSharedTool)
		r.Get("/{name}", s.apiSharedGet)
		r.Put("/{name}", s.apiSharedWrite)
		r.Post("/{name}", s.apiSharedWrite)
		r.Delete("/{name}", s.apiSharedDelete)
		r.Get("/{name}/status", s.apiSharedStatus)
		r.Put("/{name}/status", s.apiSharedSetStatus)
		r.Post("/{name}/status", s.apiSharedSetStatus)
		r.Get("/{name}/history", s.apiSharedHistory)
	})
}

// mcpOptions names the tools /mcp offers.
func (s *Server) mcpOptions() mcpserver.Options {
	return mcpserver.Options{
		Version:     s.cfg.Version,
		SharedPlans: s.sharedTools,
		Approvals:   s.approver(),
	}
}
