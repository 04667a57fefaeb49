package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicRequest is the part of a Messages API request the server looks at.
type anthropicRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// anthropic answers POST /v1/messages. Claude Code's agent loop always offers tools; the
// requests without tools are its side calls (the "quota" probe, title and topic
// generation…), which get a short text and leave the script alone.
func (m *ModelServer) anthropic(w http.ResponseWriter, req Request) {
	var in anthropicRequest
	if err := json.Unmarshal(req.Body, &in); err != nil {
		m.record(req)
		http.Error(w, "agenttest: bad JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	req.Side = len(in.Tools) == 0
	turn := m.next(req)
	model := in.Model
	if model == "" {
		model = "claude-agenttest"
	}

	type block = map[string]any
	var blocks []block
	if turn.Text != "" {
		blocks = append(blocks, block{"type": "text", "text": turn.Text})
	}
	calls := turn.calls()
	for _, tu := range calls {
		var input any
		if err := json.Unmarshal([]byte(m.inputJSON(tu)), &input); err != nil {
			m.t.Errorf("agenttest: tool %s input is not JSON: %v", tu.Name, err)
		}
		blocks = append(blocks, block{"type": "tool_use", "id": tu.ID, "name": tu.Name, "input": input})
	}
	stop := "end_turn"
	if len(calls) > 0 {
		stop = "tool_use"
	}
	msgID := fmt.Sprintf("msg_agenttest_%04d", req.Seq)
	usage := map[string]any{"input_tokens": 10, "output_tokens": 10,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}

	if !in.Stream {
		writeJSON(w, map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": block{"type": "text", "text": ""}})
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": block{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			// The input streams as JSON text after an empty object, as the real API does.
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": block{"type": "tool_use", "id": b["id"], "name": b["name"], "input": block{}}})
			js, _ := json.Marshal(b["input"])
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": block{"type": "input_json_delta", "partial_json": string(js)}})
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

// ToolResult is a tool_result block an Anthropic-API client sent back.
type ToolResult struct {
	ToolUseID string
	IsError   bool
	// Content is the result's text: the string content, or its text blocks joined by "\n".
	Content string
}

// ToolResults returns the tool_result blocks of the request's last user message: the results
// of the calls the previous answer made.
func (r Request) ToolResults() []ToolResult {
	var in anthropicRequest
	if r.API != "anthropic" || json.Unmarshal(r.Body, &in) != nil || len(in.Messages) == 0 {
		return nil
	}
	last := in.Messages[len(in.Messages)-1]
	if last.Role != "user" {
		return nil
	}
	var blocks []struct {
		Type      string          `json:"type"`
		ToolUseID string          `json:"tool_use_id"`
		IsError   bool            `json:"is_error"`
		Content   json.RawMessage `json:"content"`
	}
	if json.Unmarshal(last.Content, &blocks) != nil {
		return nil // a plain string: a typed prompt, no results
	}
	var out []ToolResult
	for _, b := range blocks {
		if b.Type == "tool_result" {
			out = append(out, ToolResult{ToolUseID: b.ToolUseID, IsError: b.IsError, Content: contentText(b.Content)})
		}
	}
	return out
}

// ToolResult returns the result for the call with this id, if the request carries it.
func (r Request) ToolResult(id string) (ToolResult, bool) {
	for _, res := range r.ToolResults() {
		if res.ToolUseID == id {
			return res, true
		}
	}
	return ToolResult{}, false
}

// contentText flattens a content field that is either a string or a list of blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
