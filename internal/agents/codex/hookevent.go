package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/plandash/plandash/internal/files"
	"github.com/plandash/plandash/internal/plans"
)

// MaxEventBytes bounds one hook payload: the Stop event, plus the plan the hook command adds.
const MaxEventBytes = 4 << 20

// MaxTranscriptTail bounds how much of the end of a rollout the Stop hook reads to find the
// turn's plan.
const MaxTranscriptTail = 8 << 20

// EventStop is the hook event plandash gates plans on (codex-rs/hooks schema stop.command.input).
const EventStop = "Stop"

// HookEvent is one Codex hook payload. Known fields are lifted out; Raw is the payload as sent.
type HookEvent struct {
	SessionID            string          `json:"session_id,omitempty"`
	TurnID               string          `json:"turn_id,omitempty"`
	TranscriptPath       string          `json:"transcript_path,omitempty"`
	Cwd                  string          `json:"cwd,omitempty"`
	HookEventName        string          `json:"hook_event_name,omitempty"`
	Model                string          `json:"model,omitempty"`
	PermissionMode       string          `json:"permission_mode,omitempty"`
	StopHookActive       bool            `json:"stop_hook_active,omitempty"`
	LastAssistantMessage string          `json:"last_assistant_message,omitempty"`
	ToolName             string          `json:"tool_name,omitempty"`     // PreToolUse, PostToolUse
	ToolUseID            string          `json:"tool_use_id,omitempty"`   // the call id
	ToolInput            json.RawMessage `json:"tool_input,omitempty"`    // the call's arguments
	ToolResponse         json.RawMessage `json:"tool_response,omitempty"` // PostToolUse: the call's output
	Host                 string          `json:"plandash_host,omitempty"` // added by `plandash hook codex`
	Plan                 *TurnPlan       `json:"plandash_plan,omitempty"` // added by `plandash hook codex`
	Raw                  json.RawMessage `json:"-"`
}

// TurnPlan is the plan a turn produced: update_plan's checklist or plan mode's markdown.
type TurnPlan struct {
	Kind        string     `json:"kind"` // "items" or "markdown"
	Steps       []PlanStep `json:"steps,omitempty"`
	Explanation string     `json:"explanation,omitempty"`
	Markdown    string     `json:"markdown,omitempty"`
}

// Empty reports whether the plan says nothing.
func (p *TurnPlan) Empty() bool {
	return p == nil || len(p.Steps) == 0 && strings.TrimSpace(p.Markdown) == ""
}

// Entries is the checklist as plan entries.
func (p TurnPlan) Entries() []plans.Entry { return PlanArgs{Plan: p.Steps}.Entries() }

// DecodeHookEvent reads one hook payload. It fails only when the payload is too large or not
// a JSON object; fields of an unexpected type are left empty rather than failing the hook.
func DecodeHookEvent(b []byte) (HookEvent, error) {
	if len(b) > MaxEventBytes {
		return HookEvent{}, fmt.Errorf("codex hook payload: over the %d MiB limit", MaxEventBytes>>20)
	}
	t := bytes.TrimSpace(b)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil || m == nil {
		if err == nil {
			err = errors.New("null")
		}
		return HookEvent{}, fmt.Errorf("codex hook payload: not a JSON object: %v", err)
	}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(m[k], &s)
		return s
	}
	ev := HookEvent{SessionID: str("session_id"), TurnID: str("turn_id"), TranscriptPath: str("transcript_path"),
		Cwd: str("cwd"), HookEventName: str("hook_event_name"), Model: str("model"), PermissionMode: str("permission_mode"),
		LastAssistantMessage: str("last_assistant_message"), Host: str("plandash_host"), Raw: bytes.Clone(t),
		ToolName: str("tool_name"), ToolUseID: str("tool_use_id"), ToolInput: m["tool_input"], ToolResponse: m["tool_response"]}
	_ = json.Unmarshal(m["stop_hook_active"], &ev.StopHookActive)
	var p TurnPlan
	if json.Unmarshal(m["plandash_plan"], &p) == nil && !p.Empty() && (p.Kind == "items" || p.Kind == "markdown") {
		ev.Plan = &p
	}
	return ev, nil
}

// FindTurnPlan returns the last plan produced in turn turnID (any turn when empty) among
// lines: an update_plan call, a <proposed_plan> block in an assistant message, or a plan item.
func FindTurnPlan(lines []Line, turnID string) (TurnPlan, bool) {
	var found TurnPlan
	ok := false
	turn := ""
	for _, l := range lines {
		var p struct {
			Type      string          `json:"type"`
			TurnID    string          `json:"turn_id"`
			Role      string          `json:"role"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Content   json.RawMessage `json:"content"`
			Meta      struct {
				TurnID string `json:"turn_id"`
			} `json:"internal_chat_message_metadata_passthrough"`
			Item struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		if json.Unmarshal(l.Payload, &p) != nil {
			continue
		}
		switch {
		case p.TurnID != "":
			turn = p.TurnID
		case p.Meta.TurnID != "":
			turn = p.Meta.TurnID
		}
		if turnID != "" && turn != turnID {
			continue
		}
		switch {
		case l.Type == TypeResponseItem && p.Type == "function_call" && p.Name == ToolUpdatePlan:
			if a, good := ParsePlanArgs(p.Arguments); good && len(a.Plan) > 0 {
				found, ok = TurnPlan{Kind: "items", Steps: a.Plan, Explanation: a.Explanation}, true
			}
		case l.Type == TypeResponseItem && p.Type == "message" && p.Role == "assistant":
			if md, good := ProposedPlan(contentText(p.Content)); good {
				found, ok = TurnPlan{Kind: "markdown", Markdown: md}, true
			}
		case l.Type == TypeEventMsg && p.Type == "item_completed" && strings.EqualFold(p.Item.Type, "plan") && strings.TrimSpace(p.Item.Text) != "":
			md, good := ProposedPlan(p.Item.Text)
			if !good {
				md = strings.TrimSpace(p.Item.Text)
			}
			found, ok = TurnPlan{Kind: "markdown", Markdown: md}, true
		}
	}
	return found, ok
}

// ReadTurnPlan finds the plan of turn turnID in the rollout at path, reading at most the last
// limit bytes of it (a turn's lines are at the end when its Stop hook runs).
func ReadTurnPlan(path, turnID string, limit int64) (TurnPlan, bool, error) {
	if !isRollout(path) {
		return TurnPlan{}, false, fmt.Errorf("%s is not a Codex rollout file", path)
	}
	// The path comes from the hook's event: a FIFO named like a rollout must not hang the hook,
	// so the open does not wait for a writer and only a regular file is read.
	f, err := files.OpenNoHang(files.OSOps{}, path)
	if err != nil {
		return TurnPlan{}, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return TurnPlan{}, false, err
	}
	if !fi.Mode().IsRegular() {
		return TurnPlan{}, false, fmt.Errorf("%s: %w", path, files.ErrNotRegular)
	}
	start := max(fi.Size()-limit, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return TurnPlan{}, false, err
	}
	if start > 0 {
		// The first line was cut; it starts after the first newline.
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	lines, _ := DecodeAll(b)
	p, ok := FindTurnPlan(lines, turnID)
	return p, ok, nil
}
