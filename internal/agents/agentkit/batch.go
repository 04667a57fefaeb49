package agentkit

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/plans"
)

// Batch builds the ACP messages an adapter translates one of its agent's events (or a run of
// its session file's lines) into: requests with their results, and session updates, one JSON
// line each. An agent's translator embeds it and adds what is its own (its plans, its tools).
type Batch struct {
	// SID is the session key the updates go to.
	SID string
	// IDPrefix starts the requests' ids: "droid-" makes droid-1, droid-2, …
	IDPrefix string
	// Out are the messages built so far, in order.
	Out []json.RawMessage
	n   int
}

// Add appends v, marshalled, as one message. Only plain maps, slices and strings go in, so
// marshalling cannot fail; a value that does fail is left out.
func (b *Batch) Add(v any) {
	line, err := json.Marshal(v)
	if err != nil {
		return
	}
	b.Out = append(b.Out, line)
}

// Request appends a request of method with params, and its result when result is not nil
// (a request the agent already had answered).
func (b *Batch) Request(method string, params, result any) {
	b.n++
	id := b.IDPrefix + strconv.Itoa(b.n)
	b.Add(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if result != nil {
		b.Add(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
}

// Update appends a session/update of the batch's session.
func (b *Batch) Update(u map[string]any) {
	b.Add(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": b.SID, "update": u}})
}

// Initialize appends the initialize exchange a batch starts with, so that the session shows
// its agent even when plandash missed the session's start: client is the name plandash's side
// goes by ("plandash-hook"), agent the agent's answer (its name and title, and whatever more it
// reports).
func (b *Batch) Initialize(client string, agent map[string]any) {
	b.Request("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"plan": map[string]any{}},
		"clientInfo": map[string]any{"name": client}},
		map[string]any{"protocolVersion": 1, "agentInfo": agent})
}

// NewSession appends the session/new exchange that announces the batch's session, in cwd, with
// meta as plandash's own _meta (host, the agent's session id, where it is seen from, …).
func (b *Batch) NewSession(cwd string, meta map[string]any) {
	b.Request("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}, "_meta": map[string]any{"plandash": meta}},
		map[string]any{"sessionId": b.SID})
}

// Apply decodes msgs (one ACP message or batch each) and applies them to p as one stream; each
// item's Line is its message's place in msgs, from 1. name starts the error of a message that
// does not decode ("droid: translated message 2 does not decode"): a translator's bug.
func Apply(ctx context.Context, p Applier, name string, msgs []json.RawMessage) (plans.Result, error) {
	items := make([]plans.Item, 0, len(msgs))
	for i, line := range msgs {
		decoded, err := acp.DecodeLine(line)
		if err != nil {
			return plans.Result{}, fmt.Errorf("%s: translated message %d does not decode: %w", name, i+1, err)
		}
		for _, m := range decoded {
			items = append(items, plans.Item{Line: i + 1, Msg: m})
		}
	}
	return p.Apply(ctx, plans.NewStream(), items)
}
