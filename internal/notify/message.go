package notify

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// message is what one send says: one wait, or several coalesced, with the links its buttons
// carry. Every format is built from it, so all channels say the same words.
type message struct {
	Event   Event
	Waits   []Wait
	Open    string              // absolute URL of the page to open
	Buttons []button            // one-tap answers: only for one wait that fits
	Links   map[string][]button // a webhook's batch: each wait's one-tap answers, by wait id
	Keys    []string            // each wait's own idempotency key, in the order of Waits
	// Remote names the chat message: the one a beginning posts (ntfy's sequence id), or the
	// one an end updates or clears.
	Remote string
	// Announced is how many waits the message an end clears announced (a coalesced one may
	// have announced more than the end carries: the others ended before).
	Announced int
}

// button is an answer link.
type button struct {
	Action string
	Label  string
	URL    string
}

// Bounds on what a message carries: outside input (titles, plans) never makes a message
// longer than a channel takes or a phone shows.
const (
	maxTitle   = 150
	maxOutcome = 120
	maxBody    = 1500
	maxListed  = 10
)

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// kindNoun is how a wait's kind reads in "5 plans wait".
func kindNoun(kind string, n int) string {
	noun := map[string]string{"plan": "plan", "permission": "permission request", "question": "question", "input": "session"}[kind]
	if noun == "" {
		noun = "request"
	}
	if n != 1 {
		noun += "s"
	}
	return noun
}

// Title is the message's first line.
func (m message) Title() string {
	if len(m.Waits) == 1 {
		w := m.Waits[0]
		if m.Event == Ended && m.Announced > 1 {
			return fmt.Sprintf("Answered: all %d waits", m.Announced)
		}
		if m.Event == Ended && w.Outcome != "" {
			return clip("Answered: "+w.Title, maxTitle-len(w.Outcome)-3) + " (" + w.Outcome + ")"
		}
		if m.Event == Ended {
			return clip("Answered: "+w.Title, maxTitle)
		}
		verb := map[string]string{"plan": "waits for approval", "permission": "asks permission", "question": "asks", "input": "waits for your input"}[w.Kind]
		if verb == "" {
			verb = "waits"
		}
		return clip(w.Who()+" "+verb+": "+w.Title, maxTitle)
	}
	count := map[string]int{}
	if m.Event == Ended {
		return fmt.Sprintf("Answered: all %d waits", max(len(m.Waits), m.Announced))
	}
	var order []string
	for _, w := range m.Waits {
		if count[w.Kind] == 0 {
			order = append(order, w.Kind)
		}
		count[w.Kind]++
	}
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%d %s", count[k], kindNoun(k, count[k])))
	}
	verb := " wait"
	if len(parts) == 1 && count[order[0]] == 1 {
		verb = " waits"
	}
	return strings.Join(parts, ", ") + verb
}

// Body is the message's text: where and until when for one wait (with the whole plan or
// question when it fits), a list for several.
func (m message) Body() string {
	var b strings.Builder
	if len(m.Waits) == 1 {
		w := m.Waits[0]
		if w.Fits && w.Detail != "" {
			b.WriteString(w.Detail)
			b.WriteString("\n\n")
		}
		b.WriteString(where(w))
		if !w.Answerable {
			b.WriteString("\nAnswer it in the terminal.")
		}
		return clip(b.String(), maxBody)
	}
	for i, w := range m.Waits {
		if i == maxListed {
			fmt.Fprintf(&b, "… and %d more\n", len(m.Waits)-maxListed)
			break
		}
		fmt.Fprintf(&b, "• %s: %s\n", w.Who(), clip(w.Title, 100))
	}
	return clip(strings.TrimRight(b.String(), "\n"), maxBody)
}

// where says who waits where, and what the deadline does.
func where(w Wait) string {
	var parts []string
	if w.Machine != "" {
		parts = append(parts, "on "+w.Machine)
	}
	if w.Cwd != "" {
		parts = append(parts, "in "+w.Cwd)
	}
	s := w.Who()
	if len(parts) > 0 {
		s += " " + strings.Join(parts, " ")
	}
	if !w.Deadline.IsZero() {
		s += " · until " + w.Deadline.UTC().Format(time.RFC3339)
		if w.Then != "" {
			s += ", then " + w.Then
		}
	}
	return s
}
