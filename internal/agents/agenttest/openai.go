package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// openaiRequest is the part of a Responses API request the server looks at.
type openaiRequest struct {
	Model  string            `json:"model"`
	Tools  []json.RawMessage `json:"tools"`
	Input  []json.RawMessage `json:"input"`
	Stream bool              `json:"stream"`
}

// openai answers POST /v1/responses with a streamed response, as Codex expects. Requests
// without tools are side calls (Codex's title and summary helpers), answered with a short text.
func (m *ModelServer) openai(w http.ResponseWriter, req Request) {
	var in openaiRequest
	if err := json.Unmarshal(req.Body, &in); err != nil {
		m.record(req)
		http.Error(w, "agenttest: bad JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	req.Side = len(in.Tools) == 0
	turn := m.next(req)
	respID := fmt.Sprintf("resp_agenttest_%04d", req.Seq)

	type item = map[string]any
	var items []item
	if turn.Text != "" {
		items = append(items, item{"type": "message", "role": "assistant", "status": "completed",
			"id":      fmt.Sprintf("msg_agenttest_%04d", req.Seq),
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}}})
	}
	for _, tu := range turn.calls() {
		items = append(items, item{"type": "function_call", "id": "fc_" + tu.ID, "call_id": tu.ID,
			"name": tu.Name, "arguments": m.inputJSON(tu), "status": "completed"})
	}
	usage := map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 20}
	base := map[string]any{"id": respID, "object": "response", "model": in.Model, "status": "in_progress", "output": []any{}}

	s := newSSE(w)
	s.event("response.created", map[string]any{"type": "response.created", "response": base})
	for i, it := range items {
		s.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		if it["type"] == "message" {
			s.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta",
				"item_id": it["id"], "output_index": i, "content_index": 0, "delta": turn.Text})
		}
		s.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	done := map[string]any{"id": respID, "object": "response", "model": in.Model, "status": "completed",
		"output": items, "usage": usage}
	s.event("response.completed", map[string]any{"type": "response.completed", "response": done})
}

// FunctionCallOutput is a function_call_output item a Responses-API client sent back.
type FunctionCallOutput struct {
	CallID string
	Output string
}

// FunctionCallOutputs returns the function_call_output items in the request's input.
func (r Request) FunctionCallOutputs() []FunctionCallOutput {
	var in openaiRequest
	if r.API != "openai" || json.Unmarshal(r.Body, &in) != nil {
		return nil
	}
	var out []FunctionCallOutput
	for _, raw := range in.Input {
		var it struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		}
		if json.Unmarshal(raw, &it) == nil && it.Type == "function_call_output" {
			out = append(out, FunctionCallOutput{CallID: it.CallID, Output: contentText(it.Output)})
		}
	}
	return out
}

// ToolNames returns the names of the tools the request offered the model (Anthropic's
// tools[].name, the Responses API's function tools' names, or Gemini's
// tools[].functionDeclarations[].name).
func (r Request) ToolNames() []string {
	var in struct {
		Tools []struct {
			Name                 string `json:"name"`
			Type                 string `json:"type"`
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if json.Unmarshal(r.Body, &in) != nil {
		return nil
	}
	var out []string
	for _, t := range in.Tools {
		for _, f := range t.FunctionDeclarations {
			out = append(out, f.Name)
		}
		if t.Name != "" {
			out = append(out, t.Name)
		} else if t.Type != "" {
			out = append(out, t.Type)
		}
	}
	return out
}
