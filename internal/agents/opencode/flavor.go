package opencode

import "strings"

// Flavor is what tells OpenCode and the agents built on it apart in plandash: Kilo Code's CLI
// is an OpenCode fork with the same bus events, plugins and storage, but its own name, config
// directory and plan hand-off. Everything else in this package is shared.
type Flavor struct {
	// Name and Title name the agent in sessions and at the gate; Prefix starts its sessions'
	// plandash ids.
	Name, Title, Prefix string
	// Hook is the word of its hook route, /api/v1/hooks/HOOK, which its plugin posts to.
	Hook string
	// PlanExit recognises the question that hands a finished plan over to be implemented, and
	// returns the plan file it names ("" when it names none).
	PlanExit func(QuestionAsked) (path string, ok bool)
	// PlanAnswer is the answer to that question for an approval, or for a rejection with the
	// person's reason ("" when they gave none).
	PlanAnswer func(approved bool, reason string) string
	// PlanChoices says, for the person deciding, what Approve and Reject do.
	PlanChoices string
}

// OpenCode is OpenCode itself: plan_exit asks "Plan at … is complete. Would you like to switch
// to the build agent…?", answered Yes or No (packages/opencode/src/tool/plan.ts).
var OpenCode = Flavor{
	Name: AgentName, Title: AgentTitle, Prefix: SessionPrefix, Hook: "opencode",
	PlanExit: PlanExit,
	PlanAnswer: func(approved bool, _ string) string {
		if approved {
			return "Yes"
		}
		return "No"
	},
	PlanChoices: "- **Approve** answers Yes: OpenCode switches to the build agent and implements the plan.\n" +
		"- **Reject** answers No: OpenCode stays with the plan agent.\n\n",
}

// SessionKey is the plandash session id of one of the agent's sessions.
func (f *Flavor) SessionKey(id string) string { return f.Prefix + id }

// orOpenCode is f, or OpenCode when f is nil.
func orOpenCode(f *Flavor) *Flavor {
	if f == nil {
		return &OpenCode
	}
	return f
}

// promptDecides is what happens when plandash does not decide: the agent's own prompt decides.
func (f *Flavor) promptDecides() string {
	if f.Title == AgentTitle {
		return PromptDecides
	}
	return f.Title + "'s prompt decides"
}

// planTitle is the plan's first heading, or a generic title naming the agent.
func (f *Flavor) planTitle(md string) string {
	t := planTitle(md)
	if t == "OpenCode plan" {
		return strings.Replace(t, "OpenCode", f.Title, 1)
	}
	return t
}
