package codex

import (
	"encoding/json"
	"strings"
)

// responseItem translates a response_item line: the conversation as the model sees it.
func (b *batch) responseItem(l Line) {
	var p struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Name      string          `json:"name"`
		Arguments string          `json:"arguments"`
		Input     json.RawMessage `json:"input"`
		CallID    string          `json:"call_id"`
		Output    json.RawMessage `json:"output"`
		Summary   []struct {
			Text string `json:"text"`
		} `json:"summary"`
		Action json.RawMessage `json:"action"`
	}
	if json.Unmarshal(l.Payload, &p) != nil {
		b.raw("", l)
		return
	}
	id := "codex-" + p.ID
	if p.ID == "" {
		id = lineID(l)
	}
	switch p.Type {
	case "message":
		// User-role messages include the environment and instructions Codex injects; the typed
		// prompt comes from event_msg. Developer and system messages are Codex's own.
		if p.Role != "assistant" {
			return
		}
		text := contentText(p.Content)
		b.chunk("agent_message_chunk", id, text)
		if md, ok := ProposedPlan(text); ok {
			b.proposed(md)
		}
	case "reasoning":
		var parts []string
		for _, s := range p.Summary {
			parts = append(parts, s.Text)
		}
		b.chunk("agent_thought_chunk", id, strings.Join(parts, "\n"))
	case "function_call":
		if p.Name == ToolUpdatePlan {
			b.updatePlan(l, p.CallID, p.Arguments)
			return
		}
		if isGoalTool(p.Name) && p.CallID != "" {
			if len(b.t.goalCalls) >= maxPlanIDs {
				clear(b.t.goalCalls)
			}
			b.t.goalCalls[p.CallID] = true
		}
		var in json.RawMessage
		if json.Valid([]byte(p.Arguments)) {
			in = json.RawMessage(p.Arguments)
		} else {
			in = marshal(p.Arguments)
		}
		b.toolCall(p.CallID, p.Name, in)
	case "custom_tool_call":
		b.toolCall(p.CallID, p.Name, p.Input)
	case "local_shell_call":
		b.toolCall(p.CallID, "local_shell", p.Action)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		if b.t.planCalls[p.CallID] {
			delete(b.t.planCalls, p.CallID)
			return
		}
		b.toolResult(p.CallID, p.Output)
		if b.t.goalCalls[p.CallID] {
			delete(b.t.goalCalls, p.CallID)
			if g, ok := ParseGoalOutput(p.Output); ok {
				b.goal(g)
			}
		}
	case "web_search_call", "image_generation_call", "tool_search_call", "tool_search_output":
		b.raw(p.Type, l)
	default:
		b.raw(p.Type, l)
	}
}

// eventMsg translates an event_msg line: what the UI was told. Most are echoes of response
// items or bookkeeping (token counts), and are passed over.
func (b *batch) eventMsg(l Line) {
	var p struct {
		Type    string `json:"type"`
		TurnID  string `json:"turn_id"`
		Message string `json:"message"`
		Reason  string `json:"reason"`
		Item    struct {
			Type    string          `json:"type"`
			Text    string          `json:"text"`
			Content json.RawMessage `json:"content"`
		} `json:"item"`
	}
	if json.Unmarshal(l.Payload, &p) != nil {
		return
	}
	switch p.Type {
	case "task_started", "turn_started":
		b.update(map[string]any{"sessionUpdate": "_codex_turn", "event": "started", "turnId": p.TurnID})
	case "task_complete", "turn_complete":
		b.update(map[string]any{"sessionUpdate": "_codex_turn", "event": "completed", "turnId": p.TurnID})
	case "turn_aborted":
		b.update(map[string]any{"sessionUpdate": "_codex_turn", "event": "aborted", "turnId": p.TurnID, "reason": p.Reason})
	case "user_message":
		b.prompt(p.Message)
	case "token_count":
		b.usage(l.Payload)
	case "item_completed":
		switch strings.ToLower(p.Item.Type) {
		case "usermessage", "user_message":
			b.prompt(contentText(p.Item.Content))
		case "plan":
			text := p.Item.Text
			if text == "" {
				text = contentText(p.Item.Content)
			}
			if md, ok := ProposedPlan(text); ok {
				text = md
			}
			b.proposed(text)
		}
	}
}

// contentText joins the text parts of a message's content, whatever their type is called
// (input_text, output_text, text, Text).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// usage reports a token_count event's totals and context fill as the session's usage:
// last_token_usage.total_tokens is what the context held after the last response, and
// model_context_window its size, both as Codex counts them. An event without info (the rate
// limits alone) changes nothing.
func (b *batch) usage(payload json.RawMessage) {
	type counts struct {
		Input  int64 `json:"input_tokens"`
		Output int64 `json:"output_tokens"`
		Total  int64 `json:"total_tokens"`
	}
	var p struct {
		Info *struct {
			Total  counts `json:"total_token_usage"`
			Last   counts `json:"last_token_usage"`
			Window int64  `json:"model_context_window"`
		} `json:"info"`
	}
	if json.Unmarshal(payload, &p) != nil || p.Info == nil {
		return
	}
	i := p.Info
	if i.Total.Input < 0 || i.Total.Output < 0 || i.Last.Total < 0 || i.Window < 0 {
		return
	}
	b.update(map[string]any{"sessionUpdate": "usage_update", "used": i.Last.Total, "size": i.Window,
		"_meta": map[string]any{"plandash": map[string]any{"model": b.t.model, "inputTokens": i.Total.Input, "outputTokens": i.Total.Output}}})
}
