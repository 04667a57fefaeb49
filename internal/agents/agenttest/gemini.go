package agenttest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// geminiRequest is the part of a generateContent request the server looks at.
type geminiRequest struct {
	Tools    []json.RawMessage `json:"tools"`
	Contents []struct {
		Role  string            `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"contents"`
}

// gemini answers models/{model}:generateContent and :streamGenerateContent (SSE with
// alt=sse). Requests without tools are the CLI's helpers (next-speaker checks, routing,
// summaries…), answered with a short text.
func (m *ModelServer) gemini(w http.ResponseWriter, req Request) {
	var in geminiRequest
	if err := json.Unmarshal(req.Body, &in); err != nil {
		m.record(req)
		http.Error(w, "agenttest: bad JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	req.Side = len(in.Tools) == 0
	turn := m.next(req)
	var parts []map[string]any
	if turn.Text != "" || req.Side {
		text := turn.Text
		if req.Side {
			// Gemini CLI's helpers ask for JSON in their own schemas (the next-speaker check,
			// the model router's classifier); one object satisfying them all settles them
			// quickly: the user speaks next, the task is simple.
			text = `{"next_speaker":"user","reasoning":"agenttest","complexity_reasoning":"agenttest","complexity_score":1}`
		}
		parts = append(parts, map[string]any{"text": text})
	}
	for _, tu := range turn.calls() {
		var args any
		if err := json.Unmarshal([]byte(m.inputJSON(tu)), &args); err != nil {
			m.t.Errorf("agenttest: tool %s input is not JSON: %v", tu.Name, err)
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": tu.ID, "name": tu.Name, "args": args}})
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
			"content": map[string]any{"role": "model", "parts": parts}}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  "gemini-agenttest",
	}
	if !strings.Contains(req.Path, ":streamGenerateContent") {
		writeJSON(w, resp)
		return
	}
	newSSE(w).event("", resp)
}

// FunctionResponse is a functionResponse part a Gemini-API client sent back.
type FunctionResponse struct {
	ID, Name string
	Response json.RawMessage
}

// FunctionResponses returns the functionResponse parts of the request's last content.
func (r Request) FunctionResponses() []FunctionResponse {
	var in geminiRequest
	if r.API != "gemini" || json.Unmarshal(r.Body, &in) != nil || len(in.Contents) == 0 {
		return nil
	}
	var out []FunctionResponse
	for _, raw := range in.Contents[len(in.Contents)-1].Parts {
		var p struct {
			FunctionResponse *struct {
				ID       string          `json:"id"`
				Name     string          `json:"name"`
				Response json.RawMessage `json:"response"`
			} `json:"functionResponse"`
		}
		if json.Unmarshal(raw, &p) == nil && p.FunctionResponse != nil {
			f := p.FunctionResponse
			out = append(out, FunctionResponse{ID: f.ID, Name: f.Name, Response: f.Response})
		}
	}
	return out
}
