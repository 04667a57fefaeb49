package claude

import (
	"fmt"
	"strings"

	"github.com/plandash/plandash/internal/agents/hookkit"
	"github.com/plandash/plandash/internal/approval"
)

// submission is the gate request for a plan prompt. The gate's default outcome must be approve
// or reject; reject is given, but an expired request answers nothing (see Service.decision), so
// in effect the terminal decides.
func (s *Service) submission(ev Event, pr PlanRequest) approval.Submission {
	md := pr.Markdown
	if strings.TrimSpace(md) == "" {
		md = "_Claude Code sent no plan text"
		if pr.Unreadable != "" {
			md += ": " + pr.Unreadable
		}
		md += "._"
	}
	return approval.Submission{
		SessionID: pr.SessionID, Agent: AgentTitle, Title: planTitle(md),
		Context: s.requestContext(ev, pr), Plan: approval.PlanBody{Type: approval.TypeMarkdown, Markdown: md},
		Options: []approval.Action{approval.Approve, approval.Modify, approval.Reject},
		Timeout: approval.Duration(s.cfg.Deadline), Default: approval.Reject,
		// Past the deadline the hook steps aside and Claude Code's own plan dialog decides.
		Then: "the terminal decides",
	}
}

// planTitle is the plan's first heading, or a generic title.
func planTitle(md string) string {
	for _, line := range strings.Split(md, "\n") {
		if t := strings.TrimSpace(strings.TrimLeft(line, "#")); strings.HasPrefix(line, "#") && t != "" {
			return hookkit.Truncate("Plan: "+t, approval.MaxTitle-10)
		}
	}
	return "Claude Code plan"
}

// requestContext tells the person what each choice does in Claude Code.
func (s *Service) requestContext(ev Event, pr PlanRequest) string {
	host := ev.Host
	if host == "" {
		host = s.cfg.Host
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Claude Code is waiting in plan mode in `%s` on %s (session `%s`).\n\n",
		hookkit.Truncate(ev.Cwd, 1024), hookkit.Truncate(host, 256), hookkit.Truncate(ev.SessionID, 256))
	if pr.FilePath != "" {
		fmt.Fprintf(&b, "Plan file: `%s`\n\n", hookkit.Truncate(pr.FilePath, 1024))
	}
	if pr.Unreadable != "" {
		fmt.Fprintf(&b, "**The plan file could not be read:** %s\n\n", hookkit.Truncate(pr.Unreadable, 2048))
	}
	fmt.Fprintf(&b, "- **Approve**: Claude starts implementing. Write `mode: acceptEdits` in your comment to auto-accept edits, or `mode: default` to approve edits one by one (default here: %s).\n", s.cfg.ApproveMode)
	b.WriteString("- **Modify**: Claude starts implementing your edited plan, as approved (a `mode:` line works as for approve). Only the plan reaches Claude, not the comment: write notes into the plan.\n")
	b.WriteString("- **Reject** (request changes): Claude keeps planning; your reason is sent to it.\n\n")
	b.WriteString("The terminal's own prompt stays open meanwhile: the first answer wins. If nobody decides here before the deadline, the terminal decides.")
	return b.String()
}
