package main

import "fmt"

// commands are plandash's subcommands, for suggesting one when a name is mistyped.
var commands = []string{"serve", "demo", "ingest", "url", "acp", "mcp", "approval", "dag", "install", "hook", "plans", "tokens", "doctor", "version", "help"}

// didYouMean names the option closest to got, as "did you mean "x"?", when one is within two
// edits (or got is a prefix of exactly one); else "".
func didYouMean(got string, options ...string) string {
	if got == "" {
		return ""
	}
	best, bestDist, prefixed := "", 3, []string{}
	for _, o := range options {
		if len(got) >= 2 && len(got) < len(o) && o[:len(got)] == got {
			prefixed = append(prefixed, o)
		}
		if d := editDistance(got, o); d < bestDist {
			best, bestDist = o, d
		}
	}
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	if best == "" || best == got {
		return ""
	}
	return fmt.Sprintf("did you mean %q?", best)
}

// editDistance is the Levenshtein distance between a and b, bytewise: names here are ASCII.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
