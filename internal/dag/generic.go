package dag

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// genericDoc is the wire form of a generic graph.
type genericDoc struct {
	Type  *string `json:"type"`
	Nodes []struct {
		ID     json.RawMessage `json:"id"`
		Label  *string         `json:"label"`
		Status *string         `json:"status"`
	} `json:"nodes"`
	Edges []struct {
		From  json.RawMessage `json:"from"`
		To    json.RawMessage `json:"to"`
		Label *string         `json:"label"`
	} `json:"edges"`
}

// ParseGraph reads a generic graph
//
//	{"type": "_graph", "planId": …, "nodes": [{"id", "label", "status"?}],
//	 "edges": [{"from", "to", "label"?}]}
//
// for maps that are not executable: cycles and self-loops are allowed, and
// nothing is validated beyond structure. Repeated edges between the same
// pair are merged, their distinct labels joined, because one arrow per pair
// is what a reader can follow.
func ParseGraph(raw json.RawMessage) (*Graph, error) {
	raw = bytes.TrimSpace(raw)
	if k := jsonKind(raw); k != "an object" {
		return nil, fmt.Errorf("%w: a graph must be an object with \"nodes\" and \"edges\"; got %s", ErrInvalid, k)
	}
	var doc genericDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%w: graph: %v", ErrInvalid, err)
	}
	if doc.Type != nil && *doc.Type != "_graph" {
		return nil, fmt.Errorf("%w: graph type is %q, not \"_graph\"", ErrInvalid, *doc.Type)
	}
	g := &Graph{Nodes: make([]Node, len(doc.Nodes)), index: make(map[string]int, len(doc.Nodes))}
	for i, n := range doc.Nodes {
		if n.ID == nil {
			return nil, fmt.Errorf("%w: node %d has no id", ErrInvalid, i)
		}
		id, err := idString(n.ID)
		if err != nil {
			return nil, fmt.Errorf("%w: node %d: id %v", ErrInvalid, i, err)
		}
		if j, dup := g.index[id]; dup {
			return nil, fmt.Errorf("%w: duplicate node id %q: nodes %d and %d", ErrInvalid, id, j, i)
		}
		g.index[id] = i
		node := Node{ID: id, Label: id}
		if n.Label != nil && *n.Label != "" {
			node.Label = *n.Label
		}
		if n.Status != nil && *n.Status != "" {
			if !Status(*n.Status).Valid() {
				return nil, fmt.Errorf("%w: node %q: status %q is not one of pending, in_progress, completed, failed, skipped", ErrInvalid, id, *n.Status)
			}
			node.Status = Status(*n.Status)
		}
		g.Nodes[i] = node
	}
	edgeAt := map[[2]int]int{}
	for i, e := range doc.Edges {
		from, err := g.endpoint(e.From, i, "from")
		if err != nil {
			return nil, err
		}
		to, err := g.endpoint(e.To, i, "to")
		if err != nil {
			return nil, err
		}
		label := ""
		if e.Label != nil {
			label = *e.Label
		}
		key := [2]int{from, to}
		if j, ok := edgeAt[key]; ok {
			if prev := &g.Edges[j]; label != "" && prev.Label != label {
				if prev.Label != "" {
					prev.Label += ", "
				}
				prev.Label += label
			}
			continue
		}
		edgeAt[key] = len(g.Edges)
		g.Edges = append(g.Edges, Edge{From: from, To: to, Label: label})
	}
	return g, nil
}

func (g *Graph) endpoint(raw json.RawMessage, edge int, end string) (int, error) {
	if raw == nil {
		return 0, fmt.Errorf("%w: edge %d has no %q", ErrInvalid, edge, end)
	}
	id, err := idString(raw)
	if err != nil {
		return 0, fmt.Errorf("%w: edge %d: %q %v", ErrInvalid, edge, end, err)
	}
	i, ok := g.index[id]
	if !ok {
		return 0, fmt.Errorf("%w: edge %d: %q names node %q, which does not exist", ErrInvalid, edge, end, id)
	}
	return i, nil
}
