// Package agentid gives every agent one canonical id and one display name, whatever spelling
// reached plandash: a hook adapter's display name ("Claude Code"), its id ("claude-code"), an
// ACP adapter's agentInfo name ("claude-agent-acp") or a person's rule typed in any case.
// Stored data keeps the spelling it arrived with; comparisons go through Of.
package agentid

import "strings"

// Agent is one agent as plandash names it: ID is what rules and filters match on, Name is what
// people read.
type Agent struct {
	ID   string
	Name string
}

// known are the agents plandash has adapters or tested ACP adapters for, each with the other
// spellings that name the same agent. Spellings are written normalized (see normalize).
var known = []struct {
	Agent
	also []string
}{
	{Agent{"claude-code", "Claude Code"}, []string{"claude", "claudecode", "claude-agent-acp", "claude-code-acp"}},
	{Agent{"codex", "Codex"}, []string{"codex-cli", "openai-codex", "codex-acp"}},
	{Agent{"gemini-cli", "Gemini CLI"}, []string{"gemini"}},
	{Agent{"opencode", "OpenCode"}, []string{"open-code"}},
	{Agent{"cursor", "Cursor"}, []string{"cursor-agent", "cursor-cli", "cursor-acp"}},
}

// Of is the agent a name stands for. A known agent's spelling in any case, with spaces or
// underscores for dashes, gives its canonical id and display name; any other name (an ACP
// agent's agentInfo name, a custom agent's) is its own id, normalized the same way, and its own
// display name. An empty name is the zero Agent.
func Of(name string) Agent {
	name = strings.TrimSpace(name)
	id := normalize(name)
	if id == "" {
		return Agent{}
	}
	for _, k := range known {
		if id == k.ID || contains(k.also, id) {
			return k.Agent
		}
	}
	return Agent{ID: id, Name: name}
}

// Same reports whether two names stand for the same agent. An empty name names no agent.
func Same(a, b string) bool {
	x, y := Of(a), Of(b)
	return x.ID != "" && x.ID == y.ID
}

// normalize lower-cases name and turns each run of spaces, underscores and dashes into one
// dash, so "Claude Code", "claude_code" and "CLAUDE-CODE" read alike.
func normalize(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r == ' ' || r == '_' || r == '-' || r == '\t' {
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Spellings are the names that stand for the same agent as name, folded as FoldSQL folds a
// stored name (lower case, each space or underscore a dash): the agent's id and its other known
// spellings, or name's own for an agent plandash has no other names for. Stores filter by
// agent with them, so a filter on "claude-code" finds what "Claude Code" and "claude-agent-acp"
// stored. Nil for an empty name.
func Spellings(name string) []string {
	a := Of(name)
	if a.ID == "" {
		return nil
	}
	out := []string{a.ID}
	for _, k := range known {
		if k.ID == a.ID {
			out = append(out, k.also...)
		}
	}
	return out
}

// FoldSQL is the SQL expression (SQLite's and PostgreSQL's alike) that folds the stored name in
// expr as Spellings are: trimmed, lower case, each space or underscore a dash. It does not
// merge runs of them as Of does; no spelling plandash knows has one.
func FoldSQL(expr string) string {
	return "replace(replace(lower(trim(" + expr + ")), ' ', '-'), '_', '-')"
}
