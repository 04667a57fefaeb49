package plans

import (
	"encoding/json"
	"math"
)

// maxModelName bounds a reported model name: a name, not a document.
const maxModelName = 128

// decodeUsage reads an ACP usage_update ({"used","size","cost":{"amount","currency"}}) and the
// totals and model adapters add in _meta.plandash ({"model","inputTokens","outputTokens"}).
// It reports false when used or size is missing, negative or not an integer; the optional parts
// are dropped when malformed.
func decodeUsage(raw json.RawMessage) (*Usage, bool) {
	var w struct {
		Used *json.Number `json:"used"`
		Size *json.Number `json:"size"`
		Cost *struct {
			Amount   json.Number `json:"amount"`
			Currency string      `json:"currency"`
		} `json:"cost"`
		Meta struct {
			Plandash struct {
				Model        string      `json:"model"`
				InputTokens  json.Number `json:"inputTokens"`
				OutputTokens json.Number `json:"outputTokens"`
			} `json:"plandash"`
		} `json:"_meta"`
	}
	if json.Unmarshal(raw, &w) != nil {
		// A malformed optional part must not lose the counts: read them alone.
		w.Cost, w.Meta.Plandash.Model = nil, ""
		var counts struct {
			Used *json.Number `json:"used"`
			Size *json.Number `json:"size"`
		}
		if json.Unmarshal(raw, &counts) != nil {
			return nil, false
		}
		w.Used, w.Size = counts.Used, counts.Size
	}
	used, ok1 := tokenCount(w.Used)
	size, ok2 := tokenCount(w.Size)
	if !ok1 || !ok2 {
		return nil, false
	}
	u := &Usage{Used: used, Size: size}
	u.InputTokens, _ = tokenCount(&w.Meta.Plandash.InputTokens)
	u.OutputTokens, _ = tokenCount(&w.Meta.Plandash.OutputTokens)
	if m := w.Meta.Plandash.Model; len(m) <= maxModelName {
		u.Model = m
	}
	if c := w.Cost; c != nil && len(c.Currency) <= 8 {
		if a, err := c.Amount.Float64(); err == nil && a >= 0 && !math.IsInf(a, 0) {
			u.Cost = &Cost{Amount: a, Currency: c.Currency}
		}
	}
	return u, true
}

// tokenCount reads a non-negative integer token count; "" (absent) is 0 and not ok.
func tokenCount(n *json.Number) (int64, bool) {
	if n == nil || *n == "" {
		return 0, false
	}
	v, err := n.Int64()
	if err != nil || v < 0 {
		return 0, false
	}
	return v, true
}
