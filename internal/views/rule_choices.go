package views

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/plandash/plandash/internal/agentid"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/web/templates"
)

// maxDirChoices bounds the directories the rule form suggests: those of the newest sessions.
const maxDirChoices = 50

// ruleChoices is what the rule form suggests: the agents of the recent sessions and of the
// gate's listed requests, once each by canonical id (the id is what a rule matches on, see
// approval.Rule.Matches), and the recent sessions with who and where they are, and their machines and directories. A failed read
// leaves the suggestions out; the form works without them.
func (p *Pages) ruleChoices(ctx context.Context, pending []approval.Summary, decided []approval.Request) templates.RuleChoices {
	recent, err := p.plans.Sessions(ctx, facetSessions)
	if err != nil {
		p.log.Warn("approvals: listing recent sessions for the rule form", "err", err)
	}
	agents := map[string]string{} // canonical id → display name
	add := func(name, title string) {
		a := agentid.Of(name)
		if a.ID == "" {
			a = agentid.Of(title)
		}
		if a.ID == "" {
			return
		}
		if a.Name == strings.TrimSpace(name) && title != "" {
			a.Name = title // an agent plandash has no name for: its own title (ACP agentInfo)
		}
		if _, ok := agents[a.ID]; !ok {
			agents[a.ID] = a.Name
		}
	}
	var c templates.RuleChoices
	machines, dirs := map[string]bool{}, map[string]bool{}
	for _, sess := range recent {
		add(sess.Agent, sess.AgentTitle)
		if m := p.plans.Machine(sess); m != "" && !machines[m] {
			machines[m] = true
			c.Machines = append(c.Machines, templates.Choice{Value: m, Label: m})
		}
		if d := sess.Cwd; d != "" && !dirs[d] && len(c.Dirs) < maxDirChoices {
			dirs[d] = true
			c.Dirs = append(c.Dirs, templates.Choice{Value: d, Label: d})
		}
		label := strings.Join(slices.DeleteFunc([]string{sess.Name(), sess.Host, sess.Cwd, sess.Title}, func(v string) bool { return v == "" }), " · ")
		c.Sessions = append(c.Sessions, templates.Choice{Value: sess.ID, Label: cmp.Or(label, sess.ID)})
	}
	for _, r := range pending {
		add(r.Agent, "")
	}
	for _, r := range decided {
		add(r.Agent, "")
	}
	for id, name := range agents {
		c.Agents = append(c.Agents, templates.Choice{Value: id, Label: name})
	}
	slices.SortFunc(c.Agents, func(a, b templates.Choice) int { return cmp.Compare(a.Value, b.Value) })
	return c
}
