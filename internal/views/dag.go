package views

import (
	"context"
	"errors"
	"sync"

	"github.com/plandash/plandash/internal/dag"
	"github.com/plandash/plandash/internal/plans"
	"github.com/plandash/plandash/web/templates"
	"github.com/plandash/plandash/web/templates/dagview"
)

// dagInlineLimit is the largest graph drawn inside a card on the overview; bigger plans show a
// summary there and are drawn on their session's page, so a page with many plans stays light.
const dagInlineLimit = 150

// dagCache keeps laid-out views by plan revision: layout is the expensive part, and a plan's
// graph only changes with its revision while node statuses change with its tool calls.
type dagCache struct {
	mu    sync.Mutex
	views map[dagKey]dagview.View
	order []dagKey
}

type dagKey struct {
	sessionID, planID string
	revision          int
}

const dagCacheSize = 256

func (c *dagCache) get(p plans.Plan) (dagview.View, error) {
	k := dagKey{p.SessionID, p.ID, p.Revision}
	c.mu.Lock()
	v, ok := c.views[k]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	pv := templates.WithDAG(templates.PlanView{Plan: p})
	if pv.DAG == nil {
		return v, errors.New(pv.DAGErr)
	}
	v = *pv.DAG
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.views == nil {
		c.views = map[dagKey]dagview.View{}
	}
	if len(c.order) >= dagCacheSize {
		delete(c.views, c.order[0])
		c.order = c.order[1:]
	}
	c.views[k] = v
	c.order = append(c.order, k)
	return v, nil
}

// dagView fills a dag plan's drawing, with node statuses following the ACP tool calls named by
// each call's _toolCallId.
func (p *Pages) dagView(pv *templates.PlanView, status func(toolCallID string) (string, bool), inline bool) {
	v, err := p.dags.get(pv.Plan)
	if err != nil {
		pv.DAGErr = err.Error()
		return
	}
	if v.Plan != nil {
		for _, c := range v.Plan.Calls {
			if c.ToolCallID == "" {
				continue
			}
			if st, ok := status(c.ToolCallID); ok {
				if v.Statuses == nil {
					v.Statuses = map[string]dag.Status{}
				}
				v.Statuses[c.ID] = toolStatus(st)
			}
		}
	}
	pv.DAG = &v
	pv.DAGSummaryOnly = inline && len(v.Graph.Nodes) > dagInlineLimit
}

// toolStatus maps an ACP tool call status to a node status.
func toolStatus(s string) dag.Status {
	switch s {
	case "in_progress":
		return dag.StatusInProgress
	case "completed":
		return dag.StatusCompleted
	case "failed":
		return dag.StatusFailed
	case "cancelled":
		return dag.StatusSkipped
	}
	return dag.StatusPending
}

// toolStatuses answers the status of a session's tool calls by id: from the calls the caller
// already has, else one lookup per call a plan names (never the session's whole past).
func (p *Pages) toolStatuses(ctx context.Context, sessionID string, have []plans.ToolCall) func(id string) (string, bool) {
	byID := make(map[string]string, len(have))
	for _, t := range have {
		byID[t.ID] = t.Status
	}
	return func(id string) (string, bool) {
		if st, ok := byID[id]; ok {
			return st, st != ""
		}
		t, err := p.plans.ToolCall(ctx, sessionID, id)
		byID[id] = t.Status // "" when missing: asked once
		return t.Status, err == nil && t.Status != ""
	}
}
