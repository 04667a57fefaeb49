package waits

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/plandash/plandash/internal/acp"
	"github.com/plandash/plandash/internal/agentid"
	"github.com/plandash/plandash/internal/approval"
	"github.com/plandash/plandash/internal/permissions"
	"github.com/plandash/plandash/internal/plans"
)

// Prefixes of wait ids, by source.
const (
	prefixPlan       = "plan-"
	prefixPermission = "perm-"
	prefixQuestion   = "q-"
	prefixInput      = "input-"
)

// PlanID is the wait id of approval request id.
func PlanID(approvalID string) string { return prefixPlan + approvalID }

// PermissionID is the wait id of a relayed permission request: a hash, because a JSON-RPC id
// may be any JSON value and a stream any string.
func PermissionID(stream string, id []byte) string {
	h := sha256.Sum256([]byte(stream + "\x00" + string(id)))
	return prefixPermission + hex.EncodeToString(h[:12])
}

// planWait is a pending approval request as a wait, or one the agent's own dialog answered
// (Elsewhere): listed, with what is known, and answerable no more.
func planWait(r approval.Request, who Who) Wait {
	w := Wait{ID: PlanID(r.ID), Kind: KindPlan, Title: r.Title, Since: r.Created, Deadline: r.Deadline,
		Then: cmp.Or(r.Then, r.Default.Status().Words()), Answerable: true, URL: "/approvals/" + url.PathEscape(r.ID)}
	if r.Status == approval.Elsewhere {
		w.Answerable, w.Then, w.Deadline = false, "", time.Time{}
		w.Answered = approval.Elsewhere.Words()
		if r.Handover != nil {
			w.Answered = r.Handover.Note
		}
	}
	w.Detail, w.Fits = fitDetail(planText(r.Plan))
	if r.Plan.Type == approval.TypeDAG {
		w.Detail, w.Fits = "", false // a diagram is read on its page
	}
	for _, a := range []approval.Action{approval.Approve, approval.Reject} {
		if r.Allows(a) {
			w.Actions = append(w.Actions, Action{ID: string(a), Label: strings.ToUpper(string(a[:1])) + string(a[1:])})
		}
	}
	w = fill(w, who)
	if w.AgentName == "" {
		w.AgentName = agentid.Of(r.Agent).Name // "claude-agent-acp" reads "Claude Code", as its sessions do
	}
	return finish(w)
}

// planText is a plan as plain text: its markdown, or its checklist one entry a line.
func planText(p approval.PlanBody) string {
	switch p.Type {
	case approval.TypeMarkdown:
		return p.Markdown
	case approval.TypeItems:
		var b strings.Builder
		for i, e := range p.Entries {
			fmt.Fprintf(&b, "%d. %s\n", i+1, e.Content)
		}
		return b.String()
	}
	return ""
}

// permissionWait is an open relayed permission request as a wait: one action per option the
// agent offered.
func permissionWait(p permissions.Request, who Who) Wait {
	id := PermissionID(p.Stream, p.ID)
	w := Wait{ID: id, Kind: KindPermission, Title: permissions.Title(p.Params), Since: p.Offered,
		Answerable: true, URL: "/approvals#" + id} // the inbox's row has the wait's id
	if p.SessionID != "" && who.SessionID == "" {
		who.SessionID = p.SessionID
	}
	if req, err := acp.DecodeRequestPermissionParams(p.Params); err == nil {
		var parts []string
		shortened := false
		for _, raw := range [][]byte{req.ToolCall.RawInput, req.ToolCall.Content} {
			if len(raw) > 0 && acp.Valid(raw) {
				f := plans.FormatJSONWithin(raw, plans.MaxShownDepth, MaxDetail)
				shortened = shortened || f.Shortened()
				parts = append(parts, f.Text)
			}
		}
		w.Detail, w.Fits = fitDetail(strings.Join(parts, "\n"))
		if shortened {
			w.Detail, w.Fits = "", false
		}
		for _, o := range req.Options {
			w.Actions = append(w.Actions, Action{ID: o.OptionID, Label: o.Name})
		}
	}
	return finish(fill(w, who))
}

// fill sets who waits.
func fill(w Wait, who Who) Wait {
	w.SessionID = who.SessionID
	w.Agent, w.AgentName, w.Machine, w.Cwd = who.Agent, who.AgentName, who.Machine, who.Cwd
	return w
}
