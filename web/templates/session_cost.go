package templates

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/plandash/plandash/internal/plans"
)

// viaText says where plandash heard of a session from, for the session card: "" for sessions
// that say nothing (ACP agents, which talk to plandash directly).
func viaText(s plans.Session) string {
	hooks, transcript := slices.Contains(s.Via, plans.ViaHooks), slices.Contains(s.Via, plans.ViaTranscript)
	switch {
	case hooks && transcript:
		return "from hooks and its transcript"
	case transcript:
		return "from its transcript"
	case hooks:
		return "from hooks"
	}
	return ""
}

// tokens writes a token count short: 950, 12.3k, 1.2M.
func tokens(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 100_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1000)) + "k"
	case n < 1_000_000:
		return strconv.FormatInt((n+500)/1000, 10) + "k"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/1e6)) + "M"
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// usageParts are the short facts of a session's cost, in the order shown: the model, the
// tokens used, the context window's fill. Only what the agent reported is shown.
func usageParts(u *plans.Usage) []string {
	if u == nil {
		return nil
	}
	var out []string
	if u.Model != "" {
		out = append(out, u.Model)
	}
	if u.InputTokens > 0 || u.OutputTokens > 0 {
		out = append(out, tokens(u.InputTokens)+" in · "+tokens(u.OutputTokens)+" out")
	}
	if f, ok := u.Fill(); ok {
		pct := strconv.Itoa(int(f*100+0.5)) + "%"
		if f > 0 && f < 0.005 {
			pct = "<1%"
		}
		out = append(out, "context "+pct+" of "+tokens(u.Size))
	} else if u.Used > 0 {
		out = append(out, tokens(u.Used)+" tokens in context")
	}
	if u.Cost != nil && u.Cost.Amount > 0 {
		out = append(out, strconv.FormatFloat(u.Cost.Amount, 'f', 2, 64)+" "+u.Cost.Currency)
	}
	return out
}

// usageTitle explains the usage line on hover.
func usageTitle(u *plans.Usage) string {
	t := "as the agent reported: tokens sent to the model (cached included) and received"
	if u != nil && u.Used > 0 {
		t += "; tokens in the context window now: " + strconv.FormatInt(u.Used, 10)
		if u.Size > 0 {
			t += " of " + strconv.FormatInt(u.Size, 10)
		}
	}
	return t
}

// fillPercent is the context window's fill for a meter, 0–100; ok is false when unknown.
func fillPercent(u *plans.Usage) (string, bool) {
	if u == nil {
		return "", false
	}
	f, ok := u.Fill()
	return strconv.FormatFloat(f*100, 'f', 0, 64), ok
}
