package plans

import (
	"bytes"
	"encoding/json"

	"github.com/plandash/plandash/internal/acp"
)

// update applies one session/update notification.
func (b *batch) update(m acp.Message) ([]string, error) {
	n, warns, err := m.SessionNotification()
	if err != nil {
		return nil, err
	}
	msgs := make([]string, len(warns))
	for i, w := range warns {
		msgs[i] = w.String()
	}
	sess, err := b.session(n.SessionID)
	if err != nil {
		return msgs, err
	}
	u := n.Update
	// A message is the run of chunks of one kind with nothing else between them: an agent that
	// sends no messageId still starts a new message after a plan, a tool call or anything else.
	joins := sess.Streaming == u.Kind
	sess.Streaming = ""
	switch {
	case u.Plan != nil:
		return msgs, b.putPlan(sess, u.Plan, msgs)
	case u.PlanRemoved != nil:
		return msgs, b.removePlan(sess, u.PlanRemoved.PlanID)
	case u.ToolCall != nil:
		return msgs, b.toolCall(sess.ID, u.ToolCall)
	case u.Chunk != nil:
		sess.Streaming = u.Kind
		return msgs, b.addActivity(sess.ID, u.Kind, u.Chunk.MessageID, u.Chunk.Text, chunkRaw(u), joins)
	case u.Kind == acp.KindModeUpdate:
		sess.Mode = u.ModeID
		return msgs, b.addActivity(sess.ID, u.Kind, "", "Mode: "+u.ModeID, nil, false)
	case u.Info != nil:
		if u.Info.Title != nil {
			sess.Title = *u.Info.Title
		}
		return msgs, nil
	case u.Kind == "usage_update":
		// The session's cost is a fact about the session, replaced by each report; an activity
		// line per model call would bury everything else.
		if us, ok := decodeUsage(u.Raw); ok {
			sess.Usage = us
			return msgs, nil
		}
		return append(msgs, "update: usage_update needs non-negative integer used and size"), nil
	}
	// Everything else (usage, commands, config options, unknown variants) is kept raw.
	return msgs, b.addActivity(sess.ID, u.Kind, "", "", u.Raw, false)
}

// chunkRaw keeps non-text content blocks (images, resources) so they are not lost.
func chunkRaw(u acp.Update) json.RawMessage {
	if u.Chunk.Text != "" {
		return nil
	}
	return u.Raw
}

// plan returns the batch's copy of a plan, loading it when the batch has not touched it yet.
// A plan that never existed comes back with Revision 0.
func (b *batch) plan(sessionID, planID string) (*Plan, error) {
	k := PlanKey{sessionID, planID}
	if p, ok := b.plans[k]; ok {
		return p, nil
	}
	p, err := b.tx.Plan(b.ctx, sessionID, planID)
	switch {
	case isNotFound(err):
		p = Plan{SessionID: sessionID, ID: planID}
	case err != nil:
		return nil, err
	}
	if b.plans == nil {
		b.plans = map[PlanKey]*Plan{}
	}
	b.plans[k] = &p
	b.planOrder = append(b.planOrder, k)
	return &p, nil
}

// revise records the plan's new state as its next revision.
func (b *batch) revise(sess *Session, p *Plan) {
	p.Revision++
	if p.Created.IsZero() {
		p.Created = b.now
	}
	p.Updated = b.now
	p.Agent = sess.Name()
	p.Replayed = b.st.loading[sess.ID]
	rev := *p
	b.revisions = append(b.revisions, &rev)
	if b.revised == nil {
		b.revised = map[PlanKey]bool{}
	}
	b.revised[p.Key()] = true
}

func (b *batch) putPlan(sess *Session, c *acp.PlanContent, warnings []string) error {
	p, err := b.plan(sess.ID, c.PlanID)
	if err != nil {
		return err
	}
	if c.V1 && len(c.Entries) == 0 {
		// An empty v1 plan clears it: the plan is retired, its history kept.
		if p.Revision == 0 || p.Removed {
			return nil
		}
		p.Removed = true
		b.revise(sess, p)
		return nil
	}
	*p = Plan{
		SessionID: sess.ID, ID: c.PlanID, Revision: p.Revision, Created: p.Created,
		Type: c.Type, Kind: kindOf(c), Markdown: c.Markdown, URI: c.URI, Meta: c.Meta,
		Warnings: warnings,
	}
	if len(c.Entries) > 0 {
		p.Entries = make([]Entry, len(c.Entries))
		for i, e := range c.Entries {
			p.Entries[i] = Entry(e)
		}
	}
	if p.Kind == KindCustom || p.Kind == KindDAG {
		p.Raw = c.Raw
	}
	b.revise(sess, p)
	return nil
}

// kindOf decides how a plan is drawn. An items plan whose _meta carries plandash calls is a
// tool-call graph that older clients can still show as a checklist.
func kindOf(c *acp.PlanContent) Kind {
	switch c.Type {
	case acp.PlanItems:
		if hasDAGMeta(c.Meta) {
			return KindDAG
		}
		return KindItems
	case acp.PlanMarkdown:
		return KindMarkdown
	case acp.PlanFile:
		return KindFile
	case "_dag", "_graph":
		return KindDAG
	}
	return KindCustom
}

func hasDAGMeta(meta json.RawMessage) bool {
	if len(meta) == 0 || !bytes.Contains(meta, []byte(`"plandash"`)) {
		return false
	}
	var m struct {
		Plandash struct {
			Calls json.RawMessage `json:"calls"`
		} `json:"plandash"`
	}
	return json.Unmarshal(meta, &m) == nil && len(m.Plandash.Calls) > 0 && m.Plandash.Calls[0] == '['
}

func (b *batch) removePlan(sess *Session, planID string) error {
	p, err := b.plan(sess.ID, planID)
	if err != nil {
		return err
	}
	if p.Revision == 0 || p.Removed {
		return nil // nothing to retire; removing twice is harmless
	}
	p.Removed = true
	b.revise(sess, p)
	return nil
}

// toolCall merges a tool_call or tool_call_update: sent fields replace, others are kept.
func (b *batch) toolCall(sessionID string, u *acp.ToolCallUpdate) error {
	k := PlanKey{sessionID, u.ToolCallID}
	t, ok := b.tools[k]
	if !ok {
		tc, err := b.tx.ToolCall(b.ctx, sessionID, u.ToolCallID)
		switch {
		case isNotFound(err):
			tc = ToolCall{SessionID: sessionID, ID: u.ToolCallID, Status: "pending", Created: b.now}
			if b.newTools == nil {
				b.newTools = map[PlanKey]bool{}
			}
			b.newTools[k] = true
		case err != nil:
			return err
		}
		if b.tools == nil {
			b.tools = map[PlanKey]*ToolCall{}
		}
		t = &tc
		b.tools[k] = t
		b.toolOrder = append(b.toolOrder, k)
	}
	if u.Create {
		// A tool_call announces the call whole; fields it leaves out take their defaults.
		*t = ToolCall{SessionID: sessionID, ID: u.ToolCallID, Status: "pending", Created: t.Created}
	}
	setString(&t.Title, u.Title)
	setString(&t.Kind, u.Kind)
	setString(&t.Status, u.Status)
	setString(&t.Name, u.Name)
	setRaw(&t.Content, u.Content)
	setRaw(&t.Locations, u.Locations)
	setRaw(&t.RawInput, u.RawInput)
	setRaw(&t.RawOutput, u.RawOutput)
	setRaw(&t.Meta, u.Meta)
	if t.Title == "" {
		t.Title = t.ID
	}
	t.Updated = b.now
	return nil
}

func setString(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

func setRaw(dst *json.RawMessage, v json.RawMessage) {
	if v != nil {
		*dst = v
	}
}

// addActivity records activity; streamed chunks of one message are merged into one row, each
// chunk's text kept as sent (its own spaces and newlines are the message's). joins says the
// session's previous update was a chunk of the same kind, so this one may continue its message.
func (b *batch) addActivity(sessionID, kind, messageID, text string, raw json.RawMessage, joins bool) error {
	if sessionID == "" {
		return refuse(acp.CodeInvalidParams, "%s: sessionId is missing", kind)
	}
	if _, err := b.session(sessionID); err != nil {
		return err
	}
	last, err := b.latest(sessionID)
	if err != nil {
		return err
	}
	if joins && isChunk(kind) && raw == nil && last != nil && last.Kind == kind && last.MessageID == messageID {
		if len(last.Text) < maxActivityText {
			last.Text += text
		}
		if !b.queued[last] {
			b.queue(last)
		}
		return nil
	}
	a := &Activity{SessionID: sessionID, At: b.now, Kind: kind, MessageID: messageID, Text: text, Raw: raw}
	b.lastAct[sessionID] = a
	b.queue(a)
	return nil
}

func isChunk(kind string) bool {
	return kind == "agent_message_chunk" || kind == "user_message_chunk" || kind == "agent_thought_chunk"
}

// latest is the session's newest activity, from this batch or the store.
func (b *batch) latest(sessionID string) (*Activity, error) {
	if b.lastAct == nil {
		b.lastAct = map[string]*Activity{}
	}
	if a, ok := b.lastAct[sessionID]; ok {
		return a, nil
	}
	a, err := b.tx.LastActivity(b.ctx, sessionID)
	switch {
	case isNotFound(err):
		b.lastAct[sessionID] = nil
		return nil, nil
	case err != nil:
		return nil, err
	}
	b.lastAct[sessionID] = &a
	return &a, nil
}

func (b *batch) queue(a *Activity) {
	if b.queued == nil {
		b.queued = map[*Activity]bool{}
	}
	b.queued[a] = true
	b.activity = append(b.activity, a)
}
