package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// Every page is live or says it is not, and every page shows the pending count, spelled out in
// its title.
func TestEveryPageIsLiveOrSaysSo(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	startSession(a, "st1", "s1", "claude", "/work")
	a.ingest(planV1("s1", entry{"Read", "high", "in_progress"}, entry{"Write", "low", "pending"}))
	a.ingest(planV1("s1", entry{"Read", "high", "completed"}, entry{"Write", "low", "in_progress"}))
	id := a.submit(threeSteps)

	for _, tc := range []struct {
		path string
		live bool
	}{
		{"/", true},
		{"/sessions/s1", true},
		{"/approvals", true},
		{"/approvals/" + id, true},
		{"/sessions", false},
		{"/sessions/s1/plans/main/history", false},
		{"/approvals/audit", false},
		{"/sessions/no-such-session", false}, // the error page
	} {
		t.Run(strings.TrimPrefix(tc.path, "/"), func(t *testing.T) {
			p := openPage(t, a, tc.path) // waits for the socket
			// A page drawn once says when ("as of 14:02"): a fact, not a fault.
			want := regexp.MustCompile(`^live$`)
			if !tc.live {
				want = regexp.MustCompile(`^as of \d{1,2}[:.]\d{2}`)
			}
			if got := p.eval(`document.getElementById("conn").textContent`); !want.MatchString(got) {
				p.fail("the connection badge says %q, want %s", got, want)
			}
			p.wait("the pending count in the navigation and the title", `document.getElementById("pending-count").textContent === "1" && /^1 waiting( · \d+ in progress)? — /.test(document.title)`)
			if !tc.live {
				// The count stays live on a page drawn once.
				second := a.submit(strings.Replace(threeSteps, "Refactor the parser", "Another plan "+tc.path, 1))
				p.wait("the count to rise", `document.getElementById("pending-count").textContent === "2" && document.title.startsWith("2 waiting")`)
				a.gateAPI("POST", "/api/v1/approvals/"+second+"/decision", `{"action":"reject","comment":"no"}`)
				p.wait("the count to drop", `document.getElementById("pending-count").textContent === "1"`)
				if got := p.eval(`document.getElementById("conn").textContent`); !want.MatchString(got) {
					p.fail("after updates the badge says %q", got)
				}
			}
		})
	}
	// Both counters, spelled out.
	p := openPage(t, a, "/sessions/s1")
	p.wait("both counters in the title", `document.title === "1 waiting · 1 in progress — " + document.querySelector("title").dataset.base`)
}

// Streamed message chunks become one message with the spacing the agent sent, on the page as
// drawn and live.
func TestAgentMessageChunksKeepSpacing(t *testing.T) {
	a := startApp(t, t.TempDir(), "127.0.0.1:0")
	startSession(a, "st1", "s1", "claude", "/work")
	chunk := func(text string) string {
		return update("s1", map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}})
	}
	a.ingest(chunk("Reading"), chunk(" the"), chunk(" code,"), chunk(" then\ntesting."))
	p := openPage(t, a, "/sessions/s1")
	msg := `document.querySelector('[data-testid="activity-item"][data-kind="agent_message_chunk"] .act-text')`
	if got := p.eval(msg + `.textContent`); got != "Reading the code, then\ntesting." {
		p.fail("the message reads %q", got)
	}
	a.ingest(chunk(" Done"), chunk(" now."))
	p.wait("the live message", fmt.Sprintf(`%s.textContent === %s`, msg, js("Reading the code, then\ntesting. Done now.")))
	if got := p.eval(msg + `.innerText`); !strings.Contains(got, "the code, then\ntesting. Done now") {
		p.fail("the message shows as %q", got)
	}
}
